"""The names of partitions, without Dagster: a model served by an endpoint (MODEL@ENDPOINT) and a cell
(condition and seed). The CLI uses them too, so they live apart from the partition definitions (partitions.py)."""

from __future__ import annotations

import hashlib
import re

from sandbox.engine.conditions import CONDITIONS, DEFAULT

SEEDS = (1, 2, 3)
CELLS = [f"{c}.s{s}" for c in DEFAULT for s in SEEDS]
ENDPOINT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,39}")


def check_endpoint_name(name: str) -> str:
    if not ENDPOINT_NAME.fullmatch(name):
        raise ValueError(f"endpoint name {name!r}: use letters, digits, '.', '_' and '-' (at most 40)")
    return name


def model_key(model_id: str, endpoint: str) -> str:
    """The partition key of a model served by one endpoint: MODEL@ENDPOINT, so the same model id on two servers
    is two benchmarked rows. Dagster forbids `| [ ] ,` in keys and a key must stay readable: a changed id gets a
    short hash so two ids that clean to the same text never share a key."""
    clean = re.sub(r"[^A-Za-z0-9._-]+", "_", model_id).strip("_")[:80] or "model"
    if clean != model_id:
        clean = f"{clean}-{hashlib.sha256(model_id.encode()).hexdigest()[:6]}"
    return f"{clean}@{check_endpoint_name(endpoint)}"


def parse_cell(cell: str) -> tuple[str, int]:
    cond, _, seed = cell.rpartition(".s")
    if cond not in CONDITIONS or not seed.isdigit():
        raise ValueError(f"cell {cell!r}: expected CONDITION.sSEED such as think.s1")
    return cond, int(seed)
