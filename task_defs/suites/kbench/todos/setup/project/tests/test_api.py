# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import pytest


@pytest.mark.skip(reason="todo: needs a fake station")
def test_poll():
    raise NotImplementedError
