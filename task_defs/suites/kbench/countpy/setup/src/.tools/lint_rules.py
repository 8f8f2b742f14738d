# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
RULES = {
    "max-line-length": 120,
    "ignore": ["E203", "W503"],
}


def rule(name):
    return RULES.get(name)
