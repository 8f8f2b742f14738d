"""`kbench capability list|audit|run|regrade|score|judge-bias|difficulty`: the capability suite (task_defs/capability).
`audit` is its design contract (sandbox/chatwork/capability_audit.py) item by item, plus `kbench validate` of the
agent categories' task fixtures; `run` asks the chat items through the one run loop (the agent categories run as the
suite `capability_agent` with `kbench --suite capability_agent run`); `score` is klbench's scoring over what is
stored."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from kbench_dagster import service
from kbench_dagster.commands.endpoints import endpoint_settings
from kbench_dagster.commands.textjobs import add_language_options, chat_run_spec
from kbench_dagster.parquet_store import open_store
from kbench_dagster.progress import Progress
from kbench_dagster.run_settings import add_run_options
from kbench_dagster.store import DEFAULT_DB, ResultsStore
from kbench_dagster.terminal import say, visible
from sandbox.servers.probe import reported_context
from task_defs.capability.loader import ROOT, fingerprint, load_categories
from task_defs.capability.models import AGENT, CATEGORIES
from task_defs.capability.scoring import score_model

# one model on one endpoint (NULL: any) under the current suite
CHAT_ROWS = """
SELECT item, category, tier, seed, score, outcome, refusal, duration_s, model, grader
FROM capability_results
WHERE model = ? AND suite_fingerprint = ? AND (CAST(? AS VARCHAR) IS NULL OR endpoint = ?)"""
# the agent categories' attempts: graded by their hidden tests, a pass is full marks; one harness (NULL: any)
AGENT_ROWS = """
SELECT g.task AS item, g.seed, CASE WHEN g.outcome = 'pass' THEN 1.0 ELSE 0.0 END AS score, g.outcome,
       a.duration_s, g.model
FROM gradings g JOIN attempts a USING (run_id, condition, task, seed)
WHERE g.model = ? AND list_contains(?, g.task) AND (CAST(? AS VARCHAR) IS NULL OR a.endpoint = ?)
  AND (CAST(? AS VARCHAR) IS NULL OR a.agent = ?)"""


def cmd_list(args) -> int:
    cats = load_categories(args.root)
    for doc, path in cats:
        entries = [(i.id, i.tier, i.grader.kind) for i in doc.items] + \
            [(fx.task_id, "hard" if "hard" in fx.tags else "normal", "agent task") for fx in doc.tasks]
        print(f"{doc.category} ({path.name}): {len(entries)}")
        for eid, tier, kind in entries:
            print(f"  {eid:40} {tier:7} {kind}")
    return 0


def cmd_audit(args) -> int:
    from sandbox.chatwork.capability_audit import audit_suite
    from sandbox.tasks.validation import validate_tasks
    from task_defs import load_suite
    from task_defs.loader import CAPABILITY_AGENT

    cats = load_categories(args.root)
    with tempfile.TemporaryDirectory(prefix="kbench-capability-audit-") as d:
        audits, shape = audit_suite(cats, Path(d), workers=args.workers)
        bad = [a for a in audits if a.problems]
        for a in sorted(bad, key=lambda a: (a.category, a.id)):
            for p in a.problems:
                print(f"FAIL {a.category:18} {a.id:36} {visible(p)}")
        agent_bad = []
        if args.root is None and any(doc.category in AGENT for doc, _ in cats):
            suite = load_suite(CAPABILITY_AGENT)
            for v in validate_tasks(list(suite.tasks), Path(d) / "agent", workers=args.workers):
                if v.status != "ok":
                    agent_bad.append(v.task_id)
                    print(f"FAIL {'agent task':18} {v.task_id:36} {visible(v.reason)}")
    counts = {c: 0 for c in CATEGORIES}
    for doc, _ in cats:
        counts[doc.category] += len(doc.items) + len(doc.tasks)
    print(" ".join(f"{c}={n}" for c, n in counts.items()), file=sys.stderr)
    for p in shape:
        print(f"FAIL suite: {p}")
    total = sum(counts.values())
    print(f"capability audit: {total} items in {len(cats)} files, {len(bad) + len(agent_bad)} with problems, "
          f"{len(shape)} suite problems", file=sys.stderr)
    return 1 if bad or agent_bad or (shape and not args.items_only) else 0


def _judge(args):
    """The judge panel the options name, or None: judged items then stay pending."""
    from sandbox.chatwork.judge_panel import JudgePanel

    return JudgePanel.from_specs(args.judge, args.judge_family, api_key=service.cli_api_key())


def _judge_line(panel, model: str | None = None) -> str:
    if panel is None:
        return "none (judged items stay pending)"
    said = ", ".join(f"{d['model']} ({d['family'] or 'family unknown'})" for d in panel.describe())
    same = panel.same_family(model) if model else []
    return said + (f"; WARNING: {', '.join(same)} is of the same family as {model}: the board flags its judged "
                   "scores" if same else "")


def cmd_run(args) -> int:
    from sandbox.chatwork.capability import CapabilityItems

    store = open_store(args.db)
    url = endpoint_settings(args, store)["url"]  # --endpoint's or --url's, as the run will use
    tokens = args.context_tokens or reported_context(url, service.cli_api_key())
    kind = CapabilityItems(context_tokens=tokens, judge=_judge(args), latency_budget_s=args.latency_budget)
    units = kind.select(args.only, args.limit)
    run = chat_run_spec(args, kind, units, "capability", store)
    spec = run.spec
    print(f"capability {spec.run_id}: {len(units)} chat items x {len(spec.seed_list)} runs = {run.planned} attempts, "
          f"model {spec.model} at {spec.url}; long-context documents for {tokens or 'the default'} tokens of context; "
          f"judge: {_judge_line(kind.judge, spec.model)}; the agent categories "
          "run as `kbench --suite capability_agent run`", file=sys.stderr)
    bar = Progress(run.left, "capability")
    done = service.run_and_store(run, store, on_result=lambda r: bar.step(r["outcome"] == "pass"), say=say)
    doc = score_document(store, spec.model, args.latency_budget)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    print_scores(doc)
    print(f"ran {done.summary['ran']}, already done {done.summary['already_done']}; {args.out} written; "
          f"{done.stored.get('capability_results', 0)} rows in {args.db} (capability_results)", file=sys.stderr)
    return 0


def score_document(store: ResultsStore, model: str, latency_budget_s: float | None = None,
                   endpoint: str | None = None, agent: str | None = None, calibration: Path | None = None) -> dict:
    """klbench's figures for one model from every stored row of the current suite: the chat items' replies and
    the agent categories' gradings, on one endpoint and with one harness when they are given (else all of them
    together: each run an item had counts)."""
    cats = load_categories()
    agent_cat = {fx.task_id: (doc.category, "hard" if "hard" in fx.tags else "normal")
                 for doc, _ in cats for fx in doc.tasks}
    cols, rows = store.query(CHAT_ROWS, [model, fingerprint(), endpoint, endpoint])
    found = [dict(zip(cols, r)) for r in rows]
    cols, rows = store.query(AGENT_ROWS, [model, sorted(agent_cat), endpoint, endpoint, agent, agent])
    for r in rows:
        rec = dict(zip(cols, r))
        found.append({**rec, "category": agent_cat[rec["item"]][0], "tier": agent_cat[rec["item"]][1],
                      "refusal": False})
    doc = {"model": model, "endpoint": endpoint, "agent": agent, "suite_fingerprint": fingerprint(),
           "latency_budget_s": latency_budget_s, **score_model(found, latency_budget_s)}
    if calibration is not None:
        doc["judged"] = judged_share(found, calibration)
    return doc


def judged_share(rows: list[dict], calibration: Path) -> dict:
    """The judged items' share of criteria met as the judge said it (raw, each item's median over its runs) and
    corrected by Rogan-Gladen, per judged category: with the sensitivity and specificity of that category's human
    labels where it has both kinds, else of all the labels (said as `pooled`); and over every judged item."""
    from sandbox.chatwork.judge import calibration as judge_calibration
    from task_defs.capability.scoring import item_scores, rogan_gladen

    rates = judge_calibration(calibration)

    def share(found: list[dict], category: str | None) -> dict:
        items = item_scores(found)
        medians = [v["median"] for v in items.values() if v["median"] is not None and not v["refusal"]]
        raw = sum(medians) / len(medians) if medians else None
        sens, spec, labels = rates.get(category, rates[None])
        return {"items": len(medians), "raw": raw, "corrected": None if raw is None else rogan_gladen(raw, sens, spec),
                "sensitivity": sens, "specificity": spec, "labels": labels,
                "rates": "pooled" if category is not None and category not in rates else "own"}

    judged = [r for r in rows if r.get("grader") == "judge"]
    cats = sorted({r["category"] for r in judged})
    return {**share(judged, None), "calibration": str(calibration),
            "categories": {c: share([r for r in judged if r["category"] == c], c) for c in cats}}


def print_scores(doc: dict) -> None:
    def pct(x):
        return "n/a" if x is None else f"{100 * x:.1f}%"

    ci = doc.get("composite_ci")
    print(f"{doc['model']}: composite {pct(doc['composite'])}"
          f"{f' (95% {pct(ci[0])}-{pct(ci[1])})' if ci else ''}, usability {pct(doc['usability'])}, completion "
          f"{pct(doc['completion'])}, refusals {doc['refusals']}, timeouts {doc['timeouts']}, minimum detectable gap "
          f"{pct(doc['min_detectable_gap'])}; normal {pct(doc['tiers']['normal'])}, hard {pct(doc['tiers']['hard'])}")
    for cat, f in doc["categories"].items():
        refused = f"  refusals {f['refusals']}" if f["refusals"] else ""
        print(f"  {cat:18} {f['items']:3} items  {pct(f['mean']):>7}  weight {doc['weights'][cat]:.4f}{refused}")
    judged = doc.get("judged")
    if judged and judged["raw"] is not None:
        print(f"  judged items {judged['items']}: raw {pct(judged['raw'])}, corrected {pct(judged['corrected'])} "
              f"(Rogan-Gladen; judge sensitivity {judged['sensitivity']:.2f}, specificity "
              f"{judged['specificity']:.2f} from {judged['labels']} human labels)")
        for cat, c in judged["categories"].items():
            print(f"    {cat:16} {c['items']} items: raw {pct(c['raw'])}, corrected {pct(c['corrected'])} "
                  f"(sensitivity {c['sensitivity']:.2f}, specificity {c['specificity']:.2f}, "
                  f"{'its own ' + str(c['labels']) if c['rates'] == 'own' else 'all ' + str(c['labels'])} labels)")
    if doc["not_graded"]:
        print(f"  not graded ({len(doc['not_graded'])}): {', '.join(doc['not_graded'][:8])}"
              f"{' ...' if len(doc['not_graded']) > 8 else ''}")
    if doc["judge_failed"]:
        failed = doc["judge_failed_items"]
        print(f"  judge failed on {doc['judge_failed']} runs of {len(failed)} items (not scored; `kbench capability "
              f"regrade` with a working judge grades them): {', '.join(failed[:8])}{' ...' if len(failed) > 8 else ''}")


DIFFICULTY_ROWS = """
SELECT item, category, tier, seed, score, outcome, refusal, duration_s, model
FROM capability_results WHERE suite_fingerprint = ?"""


def cmd_difficulty(args) -> int:
    """Difficulty measured against every stored model, not asserted: per item the mean of the models' medians,
    the items every model (two at least) scores 0.95 or more on flagged saturated, to harden or retire."""
    from task_defs.capability.scoring import item_scores, saturated_items

    cols, found = open_store(args.db).query(DIFFICULTY_ROWS, [fingerprint()])
    rows = [dict(zip(cols, r)) for r in found]
    per_model: dict[str, dict] = {}
    for r in rows:
        per_model.setdefault(r["model"], []).append(r)
    medians = {m: item_scores(rs) for m, rs in per_model.items()}
    items = sorted({i for m in medians.values() for i in m})
    saturated = set(saturated_items(rows))
    print(f"{len(per_model)} models, {len(items)} items; saturated (every model >= 0.95): {len(saturated)}")
    for item in items:
        got = [m[item]["median"] for m in medians.values() if item in m and m[item]["median"] is not None]
        mean = sum(got) / len(got) if got else None
        print(f"  {item:44} models {len(got):2}  mean {'n/a' if mean is None else f'{mean:.2f}'}"
              f"{'  SATURATED' if item in saturated else ''}")
    return 0


def cmd_score(args) -> int:
    doc = score_document(open_store(args.db), args.model, args.latency_budget, args.endpoint, args.agent,
                         Path(args.judge_calibration) if args.judge_calibration else None)
    if args.out:
        Path(args.out).write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    print_scores(doc)
    return 0


def cmd_regrade(args) -> int:
    """Grade a capability run's pending items (asked while no judge was given, or while the judge was down) and any
    graded under another version of the suite; every vote lands in the record and the store."""
    from sandbox.chatwork.capability import CapabilityItems
    from sandbox.isolation.bwrap import IsolationConfig

    kind = CapabilityItems(judge=_judge(args))
    out = service.regrade_and_store(Path(args.runs), args.run_id, kind, open_store(args.db), IsolationConfig(),
                                    Path(args.work) if args.work else None)
    s = out.summary
    print(f"{args.run_id}: regraded {len(s.regraded)}, current {s.current}, not scored {s.unscored}; "
          f"{out.stored.get('capability_results', 0)} rows in {args.db} (capability_results)")
    return 0


def add_capability_parser(sub) -> None:
    s = sub.add_parser("capability", help="the capability suite: list, audit (the design contract), run, score")
    cs = s.add_subparsers(dest="capability_cmd", required=True)
    p = cs.add_parser("list", help="the categories and their items")
    p.add_argument("--root", help=f"a folder of category files (default {ROOT})")
    p.set_defaults(func=cmd_list)
    p = cs.add_parser("audit", help="the design contract for every item; the agent tasks validated")
    p.add_argument("--root", help="a folder of category files (default: the bundled suite)")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--items-only", action="store_true",
                   help="check the items and leave the suite's shape (counts per category, share of hard) aside")
    p.set_defaults(func=cmd_audit)
    p = cs.add_parser("run", help="the chat items through the one run loop (3 runs each by default); figures to "
                                  "OUT.json")
    add_language_options(p, 300.0)
    add_run_options(p, "seeds", seeds=3)  # the median of the runs is recorded
    p.add_argument("--run-id", help="default capability-MODEL: the same command resumes that run")
    p.add_argument("--context-tokens", type=int,
                   help="the context window the long-context documents are sized to (default: the server's own, "
                        "from /props, else 8192)")
    _scoring_options(p)
    p.set_defaults(func=cmd_run)
    p = cs.add_parser("regrade", help="grade a run's pending (judged) items, with a judge, and stale ones")
    p.add_argument("--run-id", required=True)
    p.add_argument("--runs", default="runs")
    p.add_argument("--work", help="work folder root (default ~/kbench-work)")
    p.add_argument("--db", default=str(DEFAULT_DB))
    _scoring_options(p)
    p.set_defaults(func=cmd_regrade)
    p = cs.add_parser("score", help="klbench's figures for one model from the store (chat items and agent tasks)")
    p.add_argument("--model", required=True)
    p.add_argument("--db", default=str(DEFAULT_DB))
    p.add_argument("--out", help="also write the figures as JSON")
    p.add_argument("--endpoint", help="only the rows of this endpoint (default: every endpoint the model ran on)")
    p.add_argument("--agent", help="only the agent tasks run by this harness (pi or builtin; default: both)")
    p.add_argument("--judge-calibration", metavar="F.jsonl",
                   help="human labels of the judge's verdicts ({\"judge\": bool, \"human\": bool} a line): the "
                        "judged share is also given corrected by Rogan-Gladen, beside the raw one")
    p.add_argument("--latency-budget", type=float, help="seconds: runs slower than this count as not completed")
    p.set_defaults(func=cmd_score)
    p = cs.add_parser("judge-bias", help="each judge of a panel judges the same stored replies alone: agreement "
                                         "and each judge's lean per model (the board's judge-bias page)")
    _judge_options(p)
    p.add_argument("--model", action="append", help="only this judged model's replies (repeatable; default all)")
    p.add_argument("--limit", type=int, help="only the first N judged items (by id)")
    p.add_argument("--db", default=str(DEFAULT_DB))
    p.set_defaults(func=cmd_judge_bias)
    p = cs.add_parser("difficulty", help="each item's mean score over every stored model; saturated items flagged")
    p.add_argument("--db", default=str(DEFAULT_DB))
    p.set_defaults(func=cmd_difficulty)


def cmd_judge_bias(args) -> int:
    from kbench_dagster.commands.judge_bias import run_judge_bias

    return run_judge_bias(args)


def _judge_options(p) -> None:
    p.add_argument("--judge", action="append", metavar="MODEL@URL",
                   help="a judge of the reasoning, writing and research rubrics: its model id at an OpenAI-compatible "
                        "endpoint. Give it twice or more for a panel (judges of other families than the models "
                        "judged, on different endpoints): the three votes of an item are shared among them, and a "
                        "vote whose judge's server does not answer falls back to the next, recorded as such")
    p.add_argument("--judge-family", action="append", metavar="MODEL=FAMILY",
                   help="a judge's model family (its maker) where its id does not say it (e.g. my-judge=openai)")


def _scoring_options(p) -> None:
    _judge_options(p)
    p.add_argument("--latency-budget", type=float, help="seconds: runs slower than this count as not completed")
