"""The capability suite in the pipeline: the suite (its design contract a blocking check before any run), the chat
items asked of each model@endpoint x cell (as `kbench capability run` asks them), and klbench's figures per model.
The agent categories run as the suite `capability_agent` through agent_runs, like any task suite. Thin calls of
what the CLI uses."""

import tempfile
from pathlib import Path

import dagster as dg

from kbench_dagster.cells import cell_asset
from kbench_dagster.commands.capability import score_document
from kbench_dagster.resources import AgentSettings, ResultsDB
from sandbox.chatwork.capability import CapabilityItems
from sandbox.chatwork.capability_audit import audit_suite
from sandbox.chatwork.judge_panel import JudgePanel
from sandbox.servers.probe import reported_context
from task_defs.capability.loader import fingerprint, load_categories


@dg.asset(group_name="suites")
def capability_suite() -> dg.MaterializeResult:
    """The capability suite: klbench's 18 categories, items per category and tier, fingerprinted with its graders."""
    cats = load_categories()
    lines = ["| category | items | hard | graded by |", "|---|---|---|---|"]
    for doc, _ in cats:
        kinds = sorted({i.grader.kind for i in doc.items}) or ["agent task"]
        hard = sum(i.tier == "hard" for i in doc.items) + sum("hard" in fx.tags for fx in doc.tasks)
        lines.append(f"| {doc.category} | {len(doc.items) + len(doc.tasks)} | {hard} | {', '.join(kinds)} |")
    return dg.MaterializeResult(
        data_version=dg.DataVersion(fingerprint()),
        metadata={"items": sum(len(d.items) + len(d.tasks) for d, _ in cats), "categories": len(cats),
                  "suite_fingerprint": fingerprint(), "preview": dg.MetadataValue.md("\n".join(lines))})


@dg.asset_check(asset=capability_suite, blocking=True)
def capability_contract_holds() -> dg.AssetCheckResult:
    """Every item: three failable checks, a reference earning them all, no answer in its prompt, a diagnosis proved
    by its fix; the suite: four items a category at least, 140 in all, about a third hard."""
    with tempfile.TemporaryDirectory(prefix="kbench-capability-") as d:
        audits, shape = audit_suite(load_categories(), Path(d))
    problems = [f"{a.category}/{a.id}: {p}" for a in audits for p in a.problems] + shape
    return dg.AssetCheckResult(
        passed=not problems, severity=dg.AssetCheckSeverity.ERROR,
        metadata={"items": len(audits), "problems": len(problems),
                  "details": dg.MetadataValue.md("\n".join(f"- {p}" for p in problems[:50]) or "none")})


class CapabilitySettings(dg.Config):
    only: str = ""  # capability chat categories, comma-separated; empty: every one
    limit: int = 0  # the first K items of each category; 0: all
    # the judges, MODEL@URL each (two or more on different endpoints: a panel); none: judged items stay pending
    judges: list[str] = []
    judge_families: list[str] = []  # MODEL=FAMILY, for a judge whose model id does not say its maker
    latency_budget_s: float = 0.0  # a reply slower than this counts 0 in usability; 0: no budget


def _items(settings: CapabilitySettings, agent: AgentSettings, endpoint) -> tuple:
    judge = JudgePanel.from_specs(settings.judges, settings.judge_families)
    kind = CapabilityItems(context_tokens=reported_context(endpoint.url, endpoint.api_key), judge=judge,
                           latency_budget_s=settings.latency_budget_s or None)
    units = kind.select(settings.only or None, settings.limit or None)
    return kind, units, {"judge": judge.model if judge else "none", "context_tokens": kind.context_tokens or 0}


capability_results = cell_asset(
    "capability_results", "capability_results", "category", _items, deps=(capability_suite,),
    settings=CapabilitySettings,
    description="Every capability chat item asked of one model@endpoint in one cell, graded (judged items by the "
                "judge when one is configured, else pending), a row each.")


@dg.asset(deps=[capability_results], group_name="results", automation_condition=dg.AutomationCondition.eager())
def capability_scores(results_db: ResultsDB) -> dg.Output:
    """Per model: the composite (equal mean of category means) with its clustered interval and minimum detectable
    gap, usability, completion, refusals, tiers, per category."""
    store = results_db.store()
    out = {m: score_document(store, m) for m in store.values_of("capability_results", "model")}
    lines = ["| model | composite | 95% | usability | refusals | not graded |", "|---|---|---|---|---|---|"]
    for m, d in out.items():
        ci, composite, usability = d["composite_ci"], d["composite"], d["usability"]
        lines.append(f"| {m} | {'–' if composite is None else f'{composite:.3f}'} | "
                     f"{f'{ci[0]:.3f}-{ci[1]:.3f}' if ci else '–'} | "
                     f"{'–' if usability is None else f'{usability:.3f}'} | {d['refusals']} | "
                     f"{len(d['not_graded'])} |")
    return dg.Output(out, metadata={"models": len(out), "table": dg.MetadataValue.md("\n".join(lines))})
