"""The breakdown's figures: per job, each way's share of items right (mean over its runs, a Wilson interval over
items), which way wins, the paired differences between ways with bootstrap intervals over items, and, when runs of
the other wording exist, the prompt sensitivity (tested minus first, per way)."""

from __future__ import annotations

import random
from collections import defaultdict
from pathlib import Path

from kbench_dagster.reporting.export import validate_against
from kbench_dagster.reporting.stats import wilson_p
from sandbox.engine.attempt_reader import records_of

SCHEMA_ID = "kbench-dagster/breakdown/1"
SCHEMA_PATH = Path(__file__).resolve().parents[2] / "schema" / "breakdown.schema.json"
PAIRS = (("agent", "prompt"), ("agent", "item"), ("prompt", "item"))
N_BOOT = 2000


def item_accuracy(run_dir: Path, jobs: set[str] | None = None,
                  seeds: set[int] | None = None) -> dict[str, dict[str, float]]:
    """job -> item -> share of the run's repetitions that got it right (infra and pending attempts left out), for
    the jobs and seeds asked for (default: all in the run)."""
    hits: dict[tuple[str, str], list[bool]] = defaultdict(list)
    if not Path(run_dir).is_dir():
        return {}
    for record in records_of(run_dir):
        r = record.result()
        b = r.get("breakdown")
        if r.get("infra") or not b or (jobs and b["job"] not in jobs) or (seeds and r["seed"] not in seeds):
            continue
        for item, v in b["items"].items():
            hits[(b["job"], item)].append(bool(v["right"]))
    out: dict[str, dict[str, float]] = defaultdict(dict)
    for (job, item), xs in hits.items():
        out[job][item] = sum(xs) / len(xs)
    return dict(out)


def paired_interval(a: dict[str, float], b: dict[str, float], seed: int = 0) -> dict | None:
    """Mean of a - b over the items both have, with a 95% bootstrap interval that resamples items."""
    common = sorted(set(a) & set(b))
    if not common:
        return None
    d = [a[i] - b[i] for i in common]
    rng = random.Random(seed)
    means = sorted(sum(rng.choice(d) for _ in d) / len(d) for _ in range(N_BOOT))
    return {"diff": round(sum(d) / len(d), 4), "ci": [round(means[int(0.025 * N_BOOT)], 4),
                                                     round(means[int(0.975 * N_BOOT) - 1], 4)], "items": len(common)}


def _way(acc: dict[str, float]) -> dict:
    p = sum(acc.values()) / len(acc)
    return {"accuracy": round(p, 4), "ci": [round(x, 4) for x in wilson_p(p, len(acc))], "items": len(acc)}


def breakdown_document(model: str, url: str, wording: str, runs: dict[str, Path], other: dict[str, Path],
                       runs_per_way: dict[str, int], jobs: set[str] | None = None) -> dict:
    """runs: way -> run folder of this wording; other: the same for the other wording (may not exist); jobs:
    the jobs asked for. Each way counts the repetitions asked for (seeds 1..N), not more an earlier command ran."""
    acc = {way: item_accuracy(d, jobs, set(range(1, runs_per_way[way] + 1))) for way, d in runs.items()}
    acc_other = {way: item_accuracy(d, jobs) for way, d in other.items()}
    jobs = {}
    for job in sorted({j for a in acc.values() for j in a}):
        ways = {w: _way(a[job]) for w, a in acc.items() if a.get(job)}
        best = max(ways.values(), key=lambda v: v["accuracy"])["accuracy"] if ways else None
        winners = [w for w, v in ways.items() if v["accuracy"] == best]
        pairs = {f"{x}-{y}": paired_interval(acc[x][job], acc[y][job])
                 for x, y in PAIRS if job in acc.get(x, {}) and job in acc.get(y, {})}
        sens = {w: paired_interval(acc[w][job], acc_other[w][job]) for w in ways if job in acc_other.get(w, {})}
        jobs[job] = {"ways": ways, "winner": winners[0] if len(winners) == 1 else "tie", "pairs": pairs,
                     "prompt_sensitivity": sens}
    return {"schema": SCHEMA_ID, "model": model, "url": url, "prompts": wording, "runs": runs_per_way,
            "run_ids": {w: Path(d).name for w, d in runs.items()}, "jobs": jobs}


def validate_breakdown(doc: dict) -> None:
    """Raise ValueError when doc does not match its schema in schema/."""
    validate_against(doc, SCHEMA_PATH, "breakdown figures")
