"""The official ranking of the tool-use trials: one strike per model, from every strike in trial_results.

A strike qualifies only when all of these hold:

- its plan is the whole suite: the trials its run was asked for (the manifest's settings.tasks, recorded by
  `kbench trials run` for every run; without a stored manifest, the trials its rows hold) are every trial of this
  checkout's suite, so a run with --only (filtered by family), --limit or --sample does not qualify;
- it was made against this checkout's suite (suite_fingerprint of every row) and graded under this checkout's
  oracle rules (rules of every scored row);
- it holds exactly one result for every trial and every sample the run planned (the manifest's seeds 1..N), under
  one condition;
- no sample is left unresolved: an infra or skipped row is no result (the provider never answered, or our own code
  failed), so it disqualifies the strike, as a missing row would. `kbench trials triage RUN` names them; a harness
  error is graded again by `kbench regrade RUN`, a provider failure needs a fresh strike.

Of a model's qualifying strikes the newest (the manifest's created, else the latest graded_at; run id breaks a tie)
is ranked. Order: pass@1 (the trial-balanced pass share, trial_stats) descending, then grade-weighted pass (each
trial's pass share weighed easy 1, medium 2, hard 3) descending, then model id ascending; both keys are compared as
exact fractions, so equal figures tie exactly. Every strike not ranked carries its reasons in words.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass
from fractions import Fraction

from kbench_dagster.commands.trials_report import COLUMNS
from kbench_dagster.reporting.trial_stats import (
    DEFAULT_WEIGHT,
    GRADE_WEIGHTS,
    UNSCORED,
    readable_rows,
    stale_rules,
    strike_stats,
)
from kbench_dagster.store import ResultsStore
from kbench_dagster.terminal import visible

TOP = 25
RANK_SQL = ("SELECT run_id, model, condition, suite_fingerprint, graded_at, " + ", ".join(COLUMNS)
            + " FROM trial_results ORDER BY run_id, trial, seed")
MANIFEST_SQL = "SELECT run_id, created, settings FROM manifests"
RULE = ("One newest qualifying strike per model: the whole suite as planned (no --only, --limit or --sample), "
        "this checkout's suite and oracle-rules fingerprints, one result for every trial and planned sample, and no "
        "infra or skipped sample. Ordered by pass@1, then grade-weighted pass (easy 1, medium 2, hard 3), then "
        "model id.")


@dataclass(frozen=True)
class Suite:
    """What a rank is measured against: the suite's fingerprint, the oracle rules' and every trial's family and
    grade."""

    fingerprint: str
    rules: str
    trials: dict[str, tuple[str, str]]  # trial id -> (family, grade)

    @property
    def families(self) -> list[str]:
        return sorted({f for f, _ in self.trials.values()})


def current_suite(kind=None) -> Suite:
    """This checkout's suite (a ToolTrials, made here unless given)."""
    if kind is None:
        from sandbox.chatwork.trials import ToolTrials

        kind = ToolTrials()
    return Suite(kind.fingerprint, kind.rules, {u.id: (u.family.id, u.grade) for u in kind.units})


def load_strikes(store: ResultsStore) -> dict[str, dict]:
    """run_id -> {"rows" (as strike_rows reads them, plus model, condition, suite_fingerprint, graded_at),
    "manifest": the run's stored settings and created, or None}."""
    cols, found = store.query(RANK_SQL)
    out: dict[str, dict] = {}
    for values in found:
        r = dict(zip(cols, values))
        out.setdefault(r["run_id"], {"rows": [], "manifest": None})["rows"].append({**r, "sample": r["seed"]})
    _, manifests = store.query(MANIFEST_SQL)
    for run_id, created, settings in manifests:
        if run_id in out:
            try:
                parsed = json.loads(settings) if isinstance(settings, str) else settings or {}
            except ValueError:
                parsed = {}
            out[run_id]["manifest"] = {"created": created, "settings": parsed if isinstance(parsed, dict) else {}}
    return out


def _planned(strike: dict, suite: Suite) -> tuple[set[str], list[int], list[str], bool]:
    """(trials, seeds, conditions, from_manifest) the run was asked for. A manifest's tasks may name trials,
    families or grades (a Dagster cell); without a manifest the rows say what was planned."""
    rows, settings = strike["rows"], (strike["manifest"] or {}).get("settings") or {}
    tasks, seeds = settings.get("tasks"), settings.get("seeds")
    conds = [c.get("name") for c in settings.get("conditions") or [] if isinstance(c, dict) and c.get("name")]
    if isinstance(tasks, str):
        tasks = [t.strip() for t in tasks.split(",") if t.strip()]
    if tasks is None and strike["manifest"] is not None:
        trials = set(suite.trials)
    elif tasks is not None:
        trials = set()
        for t in tasks:
            named = {i for i, (f, g) in suite.trials.items() if t in (f, g)}
            trials |= named or {t}
    else:
        trials = {r["trial"] for r in rows}
    if not isinstance(seeds, list) or not seeds:
        seeds = sorted({int(r["seed"]) for r in rows if r["seed"] is not None})
    return trials, [int(s) for s in seeds], conds or sorted({str(r["condition"]) for r in rows}), bool(settings)


def _fraction_keys(rows: list[dict], suite: Suite) -> tuple[Fraction, Fraction]:
    """(pass@1, grade-weighted pass) as exact fractions over a qualifying strike's rows (all scored)."""
    n, c = Counter(), Counter()
    for r in rows:
        n[r["trial"]] += 1
        c[r["trial"]] += r["outcome"] == "pass"
    shares = {t: Fraction(c[t], n[t]) for t in n}
    weights = {t: GRADE_WEIGHTS.get(suite.trials[t][1], DEFAULT_WEIGHT) for t in shares}
    total = sum(weights.values())
    return (sum(shares.values(), Fraction(0)) / len(shares),
            sum((weights[t] * s for t, s in shares.items()), Fraction(0)) / total)


def qualify(strike: dict, suite: Suite) -> tuple[list[str], list[dict], bool]:
    """(reasons it is not ranked, in words; empty when it qualifies), the rows a rank reads (the suite's trials,
    the planned samples) and whether the plan came from a stored manifest (else from the rows)."""
    run = strike["rows"][0]["run_id"]
    rows, notes = readable_rows(strike["rows"], run)
    reasons = [f"unreadable rows: {n}" for n in notes if "cannot be read" in n]
    trials, seeds, conds, from_manifest = _planned(strike, suite)
    total = len(suite.trials)
    prints = sorted({str(r["suite_fingerprint"]) for r in rows} - {suite.fingerprint})
    if prints:
        reasons.append(f"stale suite fingerprint: made against suite {', '.join(p[:12] for p in prints)}, this "
                       f"checkout's is {suite.fingerprint[:12]}")
    else:  # a plan is measured against the suite it was made of
        families = {suite.trials[t][0] for t in trials if t in suite.trials}
        if families != set(suite.families):
            reasons.append(f"filtered by family: planned {', '.join(sorted(families)) or 'none'} "
                           f"({len(families)} of {len(suite.families)} families; the run had --only)")
        within = sum(1 for f, _ in suite.trials.values() if f in families)
        planned_here = len(trials & set(suite.trials))
        if planned_here < within:
            reasons.append(f"a slice: {planned_here} of the {within} trials of its families planned (--limit or "
                           "--sample)")
    stale = stale_rules(rows, suite.rules)
    if stale:
        reasons.append(f"stale rules: graded under oracle rules {', '.join(s[:12] for s in sorted(stale))}, this "
                       f"checkout's are {suite.rules[:12]}; `kbench regrade {run}` grades its kept replies again")
    if len(conds) != 1:
        reasons.append(f"several conditions ({', '.join(conds)}): a rank reads one")
    cond = conds[0] if conds else None
    cells = Counter((r["trial"], int(r["seed"])) for r in rows if r["condition"] == cond)
    kept = [r for r in rows if r["condition"] == cond and r["trial"] in suite.trials and int(r["seed"]) in seeds]
    unresolved = Counter(r["outcome"] for r in kept if r["outcome"] in UNSCORED)
    open_trials = {r["trial"] for r in kept if r["outcome"] in UNSCORED}
    complete = sum(1 for t in suite.trials if t not in open_trials and all(cells[(t, s)] == 1 for s in seeds))
    missing = sum(1 for t in suite.trials for s in seeds if cells[(t, s)] == 0)
    doubled = sum(1 for t in suite.trials for s in seeds if cells[(t, s)] > 1)
    if complete < total:
        why = [f"{missing} samples of the suite without a result"] if missing else []
        why += [f"{doubled} with more than one"] if doubled else []
        why += [f"{n} {o}" for o, n in sorted(unresolved.items())]
        reasons.append(f"partial: {complete} of {total} trials have one result for each of the {len(seeds)} planned "
                       f"samples ({', '.join(why) or 'none'})")
    if unresolved:
        reasons.append(f"unresolved: {sum(unresolved.values())} samples infra or skipped (they disqualify; `kbench "
                       f"trials triage {run}` names them, `kbench regrade {run}` grades harness errors again)")
    return reasons, kept, from_manifest


def _newest(strike: dict) -> tuple[str, str]:
    created = (strike["manifest"] or {}).get("created")
    graded = max((str(r["graded_at"]) for r in strike["rows"] if r["graded_at"] is not None), default="")
    return str(created or graded), strike["rows"][0]["run_id"]


def _model(strike: dict) -> str:
    return ", ".join(sorted({str(r["model"]) for r in strike["rows"]}))


def official_ranks(strikes: dict[str, dict], suite: Suite, top: int = TOP) -> dict:
    """The ranking and every exclusion.

    Returns {"rule", "suite": {fingerprint, rules, trials, families}, "ranked": [{rank, run_id, model, created,
    pass_at_1, weighted, pass_at_k, k, plan ("manifest", or "rows" where none was stored), trials, samples,
    families: {family: pass@1}, tokens}], "excluded": [{run_id,
    model, created, reasons}], "evidence": {run_id: rows a ranked strike's figures read}}."""
    good, plans, excluded = {}, {}, []
    for run, strike in sorted(strikes.items()):
        if not strike["rows"]:
            continue
        reasons, kept, from_manifest = qualify(strike, suite)
        if len({str(r["model"]) for r in strike["rows"]}) > 1:
            reasons.append(f"several models in one strike ({_model(strike)})")
        if reasons:
            excluded.append({"run_id": run, "model": _model(strike), "created": _newest(strike)[0], "reasons": reasons})
        else:
            good[run] = kept
            plans[run] = "manifest" if from_manifest else "rows"
    by_model: dict[str, list[str]] = defaultdict(list)
    for run in good:
        by_model[_model(strikes[run])].append(run)
    ranked = []
    for model, runs in by_model.items():
        runs.sort(key=lambda r: _newest(strikes[r]), reverse=True)
        newest = runs[0]
        for older in runs[1:]:
            excluded.append({"run_id": older, "model": model, "created": _newest(strikes[older])[0], "reasons": [
                f"a newer qualifying strike of the same model exists: {newest} ({_newest(strikes[newest])[0]})"]})
        p1, weighted = _fraction_keys(good[newest], suite)
        doc = strike_stats(good[newest])
        o = doc["overall"]
        ranked.append({"run_id": newest, "model": model, "created": _newest(strikes[newest])[0],
                       "pass_at_1": float(p1), "weighted": float(weighted), "pass_at_k": o["pass_at_k"],
                       "k": doc["k"], "plan": plans[newest], "trials": o["trials"], "samples": o["samples"],
                       "tokens": doc["tokens"],
                       "families": {f: g["pass_at_1"] for f, g in doc["families"].items()}, "_key": (p1, weighted)})
    ranked.sort(key=lambda e: (-e["_key"][0], -e["_key"][1], e["model"]))
    for i, e in enumerate(ranked, 1):
        e["rank"] = i
        del e["_key"]
    for e in ranked[top:]:
        excluded.append({"run_id": e["run_id"], "model": e["model"], "created": e["created"],
                         "reasons": [f"qualifies, rank {e['rank']}: only the top {top} are shown"]})
    shown = ranked[:top]
    excluded.sort(key=lambda e: (e["model"], e["run_id"]))
    return {"rule": RULE, "suite": {"fingerprint": suite.fingerprint, "rules": suite.rules,
                                    "trials": len(suite.trials), "families": suite.families},
            "ranked": shown, "excluded": excluded, "evidence": {e["run_id"]: good[e["run_id"]] for e in shown}}


def consensus(doc: dict, suite: Suite) -> dict:
    """Over the ranked strikes' common trials (each scored on its first planned sample by every one): the trials
    every model passes, every one fails, and the ones they disagree on, with each strike's verdict.

    Returns {"runs": [(run_id, model)], "common", "all_pass": [ids], "all_fail": [ids], "disagree": [{"trial",
    "family", "verdicts": {run_id: "pass"|"fail"}}], "families": {family: {common, all_pass, all_fail,
    disagree}}}."""
    runs = [(e["run_id"], e["model"]) for e in doc["ranked"]]
    first: dict[str, dict[str, bool]] = {}
    for run, _ in runs:
        rows = doc["evidence"][run]
        low = min((int(r["seed"]) for r in rows), default=None)
        first[run] = {r["trial"]: r["outcome"] == "pass" for r in rows
                      if int(r["seed"]) == low and r["outcome"] not in UNSCORED}
    common = sorted(set.intersection(*(set(v) for v in first.values())) if first else set())
    out = {"runs": runs, "common": len(common), "all_pass": [], "all_fail": [], "disagree": [],
           "families": {}}
    for t in common:
        family = suite.trials.get(t, ("?", "?"))[0]
        fam = out["families"].setdefault(family, {"common": 0, "all_pass": 0, "all_fail": 0, "disagree": 0})
        fam["common"] += 1
        verdicts = {run: first[run][t] for run, _ in runs}
        key = "all_pass" if all(verdicts.values()) else "all_fail" if not any(verdicts.values()) else "disagree"
        fam[key] += 1
        if key == "disagree":
            out[key].append({"trial": t, "family": family,
                             "verdicts": {r: "pass" if v else "fail" for r, v in verdicts.items()}})
        else:
            out[key].append(t)
    out["families"] = dict(sorted(out["families"].items()))
    return out


def _pct(p) -> str:
    return "-" if p is None else f"{100 * p:.1f}%"


def render_ranks(doc: dict) -> str:
    """The ranking as a table, then each strike not ranked with its reasons."""
    v = lambda text: visible(str(text), layout=False)  # noqa: E731 - model ids and run ids are the user's words
    lines = [f"suite {doc['suite']['fingerprint'][:12]} ({doc['suite']['trials']} trials), rules "
             f"{doc['suite']['rules'][:12]}", doc["rule"], ""]
    if doc["ranked"]:
        rows = [[str(e["rank"]), v(e["model"]), v(e["run_id"]), _pct(e["pass_at_1"]), _pct(e["weighted"]),
                 str(e["trials"]), str(e["samples"])] for e in doc["ranked"]]
        header = ["rank", "model", "strike", "pass@1", "weighted", "trials", "samples"]
        widths = [max(len(x) for x in col) for col in zip(header, *rows)]
        for cells in [header, *rows]:
            lines.append("  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip())
    else:
        lines.append("no strike qualifies")
    if doc["excluded"]:
        lines += ["", "not ranked:"]
        for e in doc["excluded"]:
            lines.append(f"  {v(e['run_id'])} ({v(e['model'])}):")
            lines += [f"    - {v(r)}" for r in e["reasons"]]
    return "\n".join(lines)
