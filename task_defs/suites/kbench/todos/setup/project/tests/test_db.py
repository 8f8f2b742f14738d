# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
# TODO_2024 migrate to the new schema; see TODO2 in the tracker
def test_schema():
    assert True
