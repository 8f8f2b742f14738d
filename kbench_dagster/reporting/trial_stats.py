"""The statistics of tool-use trial strikes: pure functions over rows, one row per (trial, sample).

A row is a dict with trial, family, grade (easy|medium|hard), shape (the answer-shape key: trials sharing it ask
one question), sample (k >= 1), outcome, score (0..1 or None) and cause (a failure cause or None). The
conventions are those of stats.py: infra and skipped rows are left out of every rate and reported as attrition,
and pass rates are trial-balanced, so a trial with more samples does not weigh more.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Iterable

from kbench_dagster.reporting.pairwise import mcnemar
from kbench_dagster.reporting.stats import SCORED, check_k, pass_at_k, wilson_p
from kbench_dagster.terminal import visible

UNSCORED = ("infra", "skipped")
GRADES = ("easy", "medium", "hard")
GRADE_WEIGHTS = {"easy": 1, "medium": 2, "hard": 3}
# An ungraded trial weighs as an easy one: a missing label must not buy a trial more say than a graded one.
DEFAULT_WEIGHT = 1

CAUSE_GROUPS = {
    "wrong_tool": "wrong tool",
    "wrong_args": "wrong arguments", "wrong_value": "wrong arguments", "wrong_label": "wrong arguments",
    "schema_invalid": "wrong arguments",
    "missing_calls": "missing calls",
    "wrong_channel": "wrong channel", "called_when_not_to": "wrong channel", "no_label": "wrong channel",
    "no_words": "wrong channel",
    "extra_calls": "extra calls",
    "malformed_args": "format error", "not_json": "format error", "empty": "format error",
    "refused": "refusal",
    "sandbox_rejected": "sandbox rejection",
    "over_budget": "over budget",
}
INFRA_GROUP = "provider/infra"
# how the run loop begins infra_error when our own code failed (HARNESS_ERROR of sandbox/engine/attempt_results.py;
# a test holds them equal): named here, since importing the run loop would cost this module of pure functions a second
HARNESS_ERROR = "harness error"


def _check(row: dict) -> str:
    outcome = row["outcome"]
    # an unknown outcome counted as either side would move a rate silently; better to stop
    if outcome not in SCORED and outcome not in UNSCORED:
        raise ValueError(f"trial {row.get('trial')!r}: unknown outcome {outcome!r}")
    return outcome


def stale_rules(rows: Iterable[dict], now: str) -> set[str]:
    """The oracle rules, other than `now`, that the strike's verdicts were graded under. A row without a verdict
    (infra, skipped, or one that cannot be read) was graded under no rules, so it makes no strike stale."""
    return {str(r.get("rules")) for r in rows if r.get("outcome") in SCORED and r.get("rules") != now}


def readable_rows(rows: Iterable[dict], run_id: str) -> tuple[list[dict], list[str]]:
    """The rows the figures read, and one note per row that needs a word: a row the figures cannot read (no
    trial, an unknown outcome) is named and set aside, and one recorded as infra by a harness error (our own code
    failed, as older parsers did on a reply nested thousands deep) is named with the command that grades its
    recorded replies. One such row never keeps a strike from its figures."""
    kept, notes = [], []
    for r in rows:
        where = f"trial {r.get('trial')!r} sample {r.get('sample')}"
        if not r.get("trial") or (r.get("outcome") not in SCORED and r.get("outcome") not in UNSCORED):
            notes.append(f"{where}: outcome {r.get('outcome')!r} cannot be read; left out")
            continue
        if r["outcome"] == "infra" and str(r.get("infra_error") or "").startswith(HARNESS_ERROR):
            notes.append(f"{where}: recorded as infra by a harness error, left out of the rates; `kbench regrade "
                         f"{run_id}` grades its recorded replies")
        kept.append(r)
    return kept, notes


def _trial_table(rows: Iterable[dict]) -> dict[str, dict]:
    """Per trial: its labels, scored samples n, passes c, summed partial scores, and unscored samples."""
    table: dict[str, dict] = {}
    for r in rows:
        outcome = _check(r)
        t = table.get(r["trial"])
        if t is None:
            # a trial without a shape is a question of its own, never merged with other unlabelled trials
            shape = r.get("shape") or f"trial:{r['trial']}"
            t = table[r["trial"]] = {"trial": r["trial"], "family": r.get("family") or "?",
                                     "grade": r.get("grade") or "?", "shape": shape,
                                     "n": 0, "c": 0, "score": 0.0, "unscored": 0}
        if outcome in UNSCORED:
            t["unscored"] += 1
            continue
        passed = outcome == "pass"
        t["n"] += 1
        t["c"] += passed
        score = r.get("score")
        t["score"] += float(score) if score is not None else float(passed)
    return table


def _group_stats(trials: list[dict], k: int) -> dict:
    scored = [t for t in trials if t["n"] > 0]
    samples = sum(t["n"] for t in scored)
    unscored = sum(t["unscored"] for t in trials)
    passes = sum(t["c"] for t in scored)
    out = {"trials": len(scored), "samples": samples, "unscored": unscored, "passes": passes,
           "shapes": len({t["shape"] for t in scored}), "k": k,
           "attrition": unscored / (samples + unscored) if samples + unscored else 0.0}
    if not scored:
        return {**out, "pass_at_1": None, "pass_at_1_ci": None, "clustered_ci": None, "pass_at_k": None,
                "k_trials": 0, "weighted": None, "mean_score": None, "valid_pass": None}
    shares = [t["c"] / t["n"] for t in scored]
    p1 = sum(shares) / len(scored)
    per_trial = wilson_p(p1, len(scored))
    lo, hi = wilson_p(p1, out["shapes"])
    # Fewer clusters than trials already widens Wilson; the union only guards rounding at the [0, 1] edges,
    # so the clustered interval is never the narrower one.
    clustered = (min(lo, per_trial[0]), max(hi, per_trial[1]))
    with_k = [t for t in scored if t["n"] >= k]
    weights = [GRADE_WEIGHTS.get(t["grade"], DEFAULT_WEIGHT) for t in scored]
    return {**out, "pass_at_1": p1, "pass_at_1_ci": per_trial, "clustered_ci": clustered,
            "pass_at_k": sum(pass_at_k(t["n"], t["c"], k) for t in with_k) / len(with_k) if with_k else None,
            "k_trials": len(with_k),
            "weighted": sum(w * s for w, s in zip(weights, shares)) / sum(weights),
            "mean_score": sum(t["score"] / t["n"] for t in scored) / len(scored),
            "valid_pass": passes / samples}


def _grade_order(name: str) -> tuple:
    return (GRADES.index(name) if name in GRADES else len(GRADES), name)


def strike_stats(rows: Iterable[dict], k: int | None = None) -> dict:
    """Every headline number of one strike, overall, per family and per grade.

    Returns {"k", "overall": G, "families": {family: G}, "grades": {grade: G}}, each G with trials, samples,
    unscored, passes, shapes, pass_at_1, pass_at_1_ci, clustered_ci, pass_at_k, k, k_trials, weighted,
    mean_score, valid_pass, attrition. One k serves every group, so the groups' pass@k compare. "tokens" is
    token_stats over the same rows."""
    rows = list(rows)
    table = _trial_table(rows)
    trials = sorted(table.values(), key=lambda t: str(t["trial"]))
    ns = [t["n"] for t in trials if t["n"] > 0]
    k = check_k(k) if k is not None else (min(ns) if ns else 1)
    families: dict[str, list[dict]] = defaultdict(list)
    grades: dict[str, list[dict]] = defaultdict(list)
    for t in trials:
        families[t["family"]].append(t)
        grades[t["grade"]].append(t)
    return {"k": k, "overall": _group_stats(trials, k),
            "families": {f: _group_stats(families[f], k) for f in sorted(families)},
            "grades": {g: _group_stats(grades[g], k) for g in sorted(grades, key=_grade_order)},
            "tokens": token_stats(rows), "oracle": oracle_stats(rows)}


def oracle_stats(rows: Iterable[dict]) -> dict:
    """What grading cost: the median and largest oracle_ms (the grading thread's CPU time) over the graded rows,
    and the largest heap high-water of the rows graded with --heap (None when none was)."""
    ms = sorted(r["oracle_ms"] for r in rows if r.get("oracle_ms") is not None)
    heap = [r["heap_peak_bytes"] for r in rows if r.get("heap_peak_bytes") is not None]
    return {"rows": len(ms), "median_ms": ms[len(ms) // 2] if ms else None, "max_ms": ms[-1] if ms else None,
            "heap_rows": len(heap), "heap_max_bytes": max(heap) if heap else None}


def render_oracle(o: dict) -> str:
    if not o["rows"]:
        return "oracle cost: not recorded (rows stored before oracle_ms was kept)"
    heap = (f"; heap high-water at most {o['heap_max_bytes'] / 1024:.1f} KiB over {o['heap_rows']} rows graded "
            "with --heap" if o["heap_rows"] else "; heap not measured (run with --heap)")
    return (f"oracle cost: median {o['median_ms']:.3f} ms, at most {o['max_ms']:.3f} ms of the grading thread's "
            f"CPU over {o['rows']} rows" + heap)


CHARS_PER_TOKEN = 4  # a reply without usage: its completion tokens estimated as ceil(characters / 4)
TOKEN_RULE = ("per sample: each sample's replies summed, over every sample of the strike; a reply without usage "
              f"counts ceil(characters it wrote / {CHARS_PER_TOKEN}) completion tokens and no prompt tokens; a sample "
              "the provider never answered (infra, skipped) counts zero")


def token_stats(rows: Iterable[dict]) -> dict:
    """Mean prompt and completion tokens per sample (TOKEN_RULE), from the token columns of trial_results.

    Returns {"samples", "counted", "prompt_mean", "completion_mean", "estimated", "estimated_tokens",
    "unanswered", "unrecorded", "rule"}: estimated counts the samples with at least one reply without usage
    (estimated_tokens what the estimate added), unanswered the infra and skipped ones (zero, in the means), and
    unrecorded the answered samples stored before the token columns existed (left out of the means)."""
    samples = unanswered = estimated = unrecorded = 0
    prompt = completion = added = 0
    for r in rows:
        samples += 1
        if r.get("outcome") in UNSCORED:
            unanswered += 1
            continue
        if r.get("unmetered_replies") is None:
            unrecorded += 1
            continue
        prompt += r.get("prompt_tokens") or 0
        completion += r.get("completion_tokens") or 0
        if r["unmetered_replies"]:
            estimated += 1
            added += -(-int(r.get("unmetered_chars") or 0) // CHARS_PER_TOKEN)
    counted = samples - unrecorded
    known = counted > unanswered or (counted and not unrecorded)  # some answered sample has a record
    return {"samples": samples, "counted": counted, "estimated": estimated, "estimated_tokens": added,
            "unanswered": unanswered, "unrecorded": unrecorded, "rule": TOKEN_RULE,
            "prompt_mean": prompt / counted if known else None,
            "completion_mean": (completion + added) / counted if known else None}


def render_tokens(t: dict) -> str:
    """One line: the means and how many samples were estimated, unanswered or without a record."""
    if t["prompt_mean"] is None:
        return f"tokens per sample: not recorded ({t['unrecorded']} samples stored before token counts were kept)"
    text = (f"tokens per sample: prompt {t['prompt_mean']:.1f}, completion {t['completion_mean']:.1f} over "
            f"{t['counted']} samples; {t['estimated']} samples estimated (a reply without usage: characters / "
            f"{CHARS_PER_TOKEN}, {t['estimated_tokens']} tokens); {t['unanswered']} unanswered (infra/skipped) "
            "counted as zero")
    return text + (f"; {t['unrecorded']} stored before token counts were kept, left out" if t["unrecorded"] else "")


def _first_samples(rows: Iterable[dict]) -> dict[str, dict]:
    return {r["trial"]: r for r in rows if int(r["sample"]) == 1 and _check(r) in SCORED}


def compare_strikes(rows_a: Iterable[dict], rows_b: Iterable[dict]) -> dict:
    """A vs B paired by trial on sample 1 (one sample each, so McNemar's table is of independent pairs).

    Returns {"common", "only_a", "only_b", "b", "c", "mcnemar": {b, c, p_exact, p_mid}, "pass_at_1_a",
    "pass_at_1_b", "discordant": {family: {"a_only": [ids], "b_only": [ids]}}}; b counts A passed and B failed,
    c the reverse. pass@1 here is sample 1's pass share on the common trials, so its gap is (b - c) / common."""
    a, b = _first_samples(rows_a), _first_samples(rows_b)
    common = sorted(set(a) & set(b), key=str)
    b_cnt = c_cnt = pass_a = pass_b = 0
    discordant: dict[str, dict[str, list]] = defaultdict(lambda: {"a_only": [], "b_only": []})
    for trial in common:
        pa, pb = a[trial]["outcome"] == "pass", b[trial]["outcome"] == "pass"
        pass_a += pa
        pass_b += pb
        if pa != pb:
            b_cnt += pa
            c_cnt += pb
            family = a[trial].get("family") or b[trial].get("family") or "?"
            discordant[family]["a_only" if pa else "b_only"].append(trial)
    n = len(common)
    return {"common": n, "only_a": len(set(a) - set(b)), "only_b": len(set(b) - set(a)),
            "b": b_cnt, "c": c_cnt, "mcnemar": mcnemar(b_cnt, c_cnt),
            "pass_at_1_a": pass_a / n if n else None, "pass_at_1_b": pass_b / n if n else None,
            "discordant": {f: discordant[f] for f in sorted(discordant)}}


def cause_group(outcome: str, cause: str | None) -> str:
    """The user-facing group of one failing scored sample; a timeout is over budget whatever its cause says."""
    if outcome == "timeout":
        return "over budget"
    return CAUSE_GROUPS.get(cause or "", "other")


def triage(rows: Iterable[dict]) -> dict:
    """Failing scored samples counted by cause and by user-facing group.

    Returns {"samples", "failures", "groups": [{"group", "count", "share", "causes": {cause: n}}], "causes":
    {cause: n}, "infra", "skipped"}; groups and causes by count descending. A sample without a cause is counted
    under its outcome (crash, nofile, ...), so every failure has a raw key. share is of the failures; infra
    (provider/infra) is not a failure of the model and stays out of the groups."""
    samples = infra = skipped = 0
    groups: dict[str, Counter] = defaultdict(Counter)
    for r in rows:
        outcome = _check(r)
        if outcome == "infra":
            infra += 1
            continue
        if outcome == "skipped":
            skipped += 1
            continue
        samples += 1
        if outcome != "pass":
            groups[cause_group(outcome, r.get("cause"))][r.get("cause") or outcome] += 1
    causes = sum(groups.values(), Counter())
    failures = sum(causes.values())
    by_count = lambda items: sorted(items, key=lambda kv: (-kv[1], kv[0]))
    return {"samples": samples, "failures": failures, "infra": infra, "skipped": skipped,
            "causes": dict(by_count(causes.items())),
            "groups": [{"group": g, "count": n, "share": n / failures, "causes": dict(by_count(groups[g].items()))}
                       for g, n in by_count((g, sum(c.values())) for g, c in groups.items())]}


# ---------------------------------------------------------------------------------------------- rendering

def _pct(p: float | None) -> str:
    return "-" if p is None else f"{100 * p:.1f}%"


def _ci(ci: tuple[float, float] | None) -> str:
    return "-" if ci is None else f"{100 * ci[0]:.1f}-{100 * ci[1]:.1f}%"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(x) for x in col) for col in zip(header, *rows)]
    fmt = lambda cells: "  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                                  for i, (c, w) in enumerate(zip(cells, widths))).rstrip()
    return [fmt(header), fmt(["-" * w for w in widths]), *(fmt(r) for r in rows)]


def render_stats(doc: dict) -> str:
    """One line per group: the per-trial Wilson interval, and beside it the one clustered by answer shape."""
    k = doc["k"]
    header = ["group", "trials", "shapes", "samples", "pass@1", "95% CI (trials)", "95% CI (shapes)",
              f"pass@{k}", "weighted", "score", "valid", "attrition"]
    body = []
    parts = [("", {"all": doc["overall"]}), ("family ", doc["families"]), ("grade ", doc["grades"])]
    for prefix, groups in parts:
        for name, g in groups.items():
            body.append([visible(f"{prefix}{name}", layout=False), str(g["trials"]), str(g["shapes"]),
                         str(g["samples"]), _pct(g["pass_at_1"]), _ci(g["pass_at_1_ci"]), _ci(g["clustered_ci"]),
                         _pct(g["pass_at_k"]), _pct(g["weighted"]), _pct(g["mean_score"]), _pct(g["valid_pass"]),
                         _pct(g["attrition"])])
    o = doc["overall"]
    foot = (f"unscored (infra/skipped): {o['unscored']}; pass@{k} over {o['k_trials']} trials with >= {k} samples; "
            "weighted: easy 1, medium 2, hard 3")
    tokens = [render_tokens(doc["tokens"])] if doc.get("tokens") else []
    oracle = [render_oracle(doc["oracle"])] if doc.get("oracle") else []
    return "\n".join([*_table(header, body), "", foot, *tokens, *oracle])


def render_compare(doc: dict, name_a: str, name_b: str) -> str:
    a, b = visible(name_a, layout=False), visible(name_b, layout=False)
    m = doc["mcnemar"]
    lines = [f"A = {a}, B = {b}: {doc['common']} trials scored on sample 1 in both "
             f"(only A {doc['only_a']}, only B {doc['only_b']})",
             f"pass@1 (sample 1): A {_pct(doc['pass_at_1_a'])}, B {_pct(doc['pass_at_1_b'])}",
             f"McNemar: b (A passed, B failed) = {doc['b']}, c (B passed, A failed) = {doc['c']}, "
             f"exact p = {m['p_exact']:.4f}, mid-p = {m['p_mid']:.4f}"]
    if doc["discordant"]:
        lines += ["", "discordant trials by family:"]
        for family, d in doc["discordant"].items():
            lines.append(f"  {visible(family, layout=False)}")
            for key, who in (("a_only", a), ("b_only", b)):
                if d[key]:
                    ids = ", ".join(visible(t, layout=False) for t in d[key])
                    lines.append(f"    only {who} passed ({len(d[key])}): {ids}")
    return "\n".join(lines)


def render_triage(doc: dict) -> str:
    body = [[g["group"], str(g["count"]), _pct(g["share"])] for g in doc["groups"]]
    attempts = doc["samples"] + doc["infra"]
    lines = [f"{doc['failures']} failing of {doc['samples']} scored samples", "",
             *_table(["group", "count", "share"], body), "",
             f"{INFRA_GROUP}: {doc['infra']} unscored ({_pct(doc['infra'] / attempts if attempts else None)} "
             f"of attempts); skipped: {doc['skipped']}"]
    if doc["causes"]:
        lines += ["", "causes: " + ", ".join(f"{visible(c, layout=False)} {n}" for c, n in doc["causes"].items())]
    return "\n".join(lines)
