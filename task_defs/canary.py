"""The canary string every task file carries, so a model trained on the suite can be caught."""

CANARY = "kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247"
