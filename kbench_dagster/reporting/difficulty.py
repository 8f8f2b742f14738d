"""How hard each task is and whether it tells contestants apart, from stored gradings (`kbench audit --results`).

A contestant is one model run by one agent under one condition (the board's groups, without the server). A task is
saturated when every contestant passes at least 95% of its scored runs, dead when none ever passes, discriminating
when the contestants' pass rates are not all equal, and in the band when the mean of their pass rates lies in
[0.3, 0.7]. Infra and skipped runs are not scored. With fewer than two contestants none of this means anything, and
the report says so instead of printing numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

SATURATED = 0.95
BAND = (0.3, 0.7)

PASS_RATES_SQL = """
SELECT task, model || ' · ' || agent || ' · ' || condition AS contestant,
       count(*) AS runs,
       avg(CASE WHEN outcome = 'pass' THEN 1.0 ELSE 0.0 END) AS pass_rate
FROM scored
WHERE outcome NOT IN ('skipped', 'infra')
GROUP BY ALL
ORDER BY task, contestant
"""


@dataclass(frozen=True)
class TaskDifficulty:
    task: str
    rates: dict[str, float]  # contestant -> pass rate over its scored runs

    @property
    def mean(self) -> float:
        return sum(self.rates.values()) / len(self.rates)

    @property
    def saturated(self) -> bool:
        return all(r >= SATURATED for r in self.rates.values())

    @property
    def dead(self) -> bool:
        return all(r == 0 for r in self.rates.values())

    @property
    def discriminating(self) -> bool:
        return len(set(self.rates.values())) > 1

    @property
    def in_band(self) -> bool:
        return BAND[0] <= self.mean <= BAND[1]

    @property
    def flag(self) -> str:
        return "saturated" if self.saturated else "dead" if self.dead else ""


def by_task(rows: list[tuple]) -> list[TaskDifficulty]:
    """Rows of PASS_RATES_SQL (task, contestant, runs, pass_rate) grouped into one entry per task."""
    rates: dict[str, dict[str, float]] = {}
    for task, contestant, _runs, rate in rows:
        rates.setdefault(task, {})[contestant] = float(rate)
    return [TaskDifficulty(t, r) for t, r in sorted(rates.items())]


def contestants(tasks: list[TaskDifficulty]) -> list[str]:
    return sorted({c for t in tasks for c in t.rates})


def shares(tasks: list[TaskDifficulty]) -> tuple[float, float]:
    """The share of tasks that discriminate and the share in the 30-70% band (tasks seen by 2+ contestants)."""
    seen = [t for t in tasks if len(t.rates) >= 2]
    if not seen:
        return 0.0, 0.0
    return (sum(t.discriminating for t in seen) / len(seen), sum(t.in_band for t in seen) / len(seen))


def report_lines(tasks: list[TaskDifficulty]) -> list[str]:
    """The printed report: a table of pass rates per task and contestant, flags, then the suite's shares."""
    names = contestants(tasks)
    if len(names) < 2:
        return [f"difficulty needs gradings of at least 2 contestants (model · agent · condition); the store has "
                f"{len(names)}{': ' + names[0] if names else ''}. Run another model, then audit again."]
    lines = ["contestants: " + "; ".join(f"[{i + 1}] {n}" for i, n in enumerate(names)),
             f"{'task':22} " + " ".join(f"{'[' + str(i + 1) + ']':>6}" for i in range(len(names))) + "   mean  flag"]
    for t in tasks:
        cells = " ".join(f"{t.rates[n]:6.2f}" if n in t.rates else f"{'-':>6}" for n in names)
        lines.append(f"{t.task:22} {cells}  {t.mean:5.2f}  {t.flag}")
    disc, band = shares(tasks)
    n_sat = sum(t.saturated for t in tasks)
    n_dead = sum(t.dead for t in tasks)
    lines.append(f"{len(tasks)} tasks: {n_sat} saturated (every contestant >= {SATURATED:.2f}), {n_dead} dead "
                 f"(nobody passes); discriminating {100 * disc:.0f}%, in the {BAND[0]:.0%}-{BAND[1]:.0%} band "
                 f"{100 * band:.0f}% (of tasks seen by 2+ contestants)")
    return lines
