"""Partitions: a dynamic `model` dimension times a static `cell` (condition and seed, e.g. `think.s1`); their keys'
spelling is in keys.py."""

from __future__ import annotations

import dagster as dg

from kbench_dagster.keys import CELLS

model_partitions = dg.DynamicPartitionsDefinition(name="model")
cell_partitions = dg.StaticPartitionsDefinition(CELLS)
run_partitions = dg.MultiPartitionsDefinition({"model": model_partitions, "cell": cell_partitions})


def keys_of(context: dg.AssetExecutionContext) -> tuple[str, str]:
    keys = context.partition_key.keys_by_dimension
    return keys["model"], keys["cell"]
