"""Judge family: replies nested a few thousand brackets deep (issue 33, finding 6).

The standard parsers recurse, so such a reply once raised RecursionError in the judge: the attempt was recorded as
infra, left out of every pass rate, and one such row made `kbench trials stats` refuse the whole strike. Here the
real commands of four chat kinds meet a scripted model that answers some items that way and the rest right:

- `kbench trials run`: native call arguments, a call written in the text, a label and a JSON answer, each deep;
- `kbench textjobs`: a deep JSON reply to an action-items and a news-facts item;
- `kbench capability run`: deep YAML and JSON documents for the structured-output items;
- `kbench breakdown` (the chat ways): a deep JSON reply to the job's one-prompt way.

Contained: every deep answer is graded as the model's failure (wrong, never infra), every other item still passes,
and `kbench trials stats` builds the strike's figures.
"""

from __future__ import annotations

import contextlib
import io
import json

from kbench_dagster.selftest.family import JudgeContext, JudgeFamily, Verdict
from kbench_dagster.store import ResultsStore
from sandbox.chatwork.breakdown_oracle import BreakdownPersona
from sandbox.chatwork.oracle import TextJobPersona
from sandbox.chatwork.trials import TrialPersona
from sandbox.servers.scripted import ScriptedServer
from sandbox.servers.scripted.personas import Conversation, Reply, ToolCall

DEPTH = 3000  # past the interpreter's recursion limit of 1000, and orjson's 1024


def deep(marker: str) -> str:
    return "[" * DEPTH + json.dumps(marker) + "]" * DEPTH


def deep_object(marker: str) -> str:
    return '{"a": ' + deep(marker) + "}"


class DeepTrials(TrialPersona):
    """The oracle, except that the first trial of select, classify and extract is answered deep, and the second
    select trial with a call written in the text whose arguments are deep."""

    def __init__(self, marker: str, targets: dict[str, str]):
        super().__init__("oracle")
        self.name, self.marker, self.targets = f"deep-{marker}", marker, targets

    def respond(self, conv: Conversation) -> Reply:
        users = conv.texts("user")
        trial = self._by_prompt.get(self._normalise(users[-1])) if users else None
        how = self.targets.get(trial.id) if trial is not None else None
        if how is None or conv.assistant_turns:
            return super().respond(conv) if how is None else Reply("Done.")
        if how == "native":
            return Reply(None, (ToolCall("c0", trial.tools[0], '{"x": ' + deep(self.marker) + "}"),))
        if how == "text":
            return Reply(f'```json\n{{"name": "{trial.tools[0]}", "arguments": {deep_object(self.marker)}}}\n```')
        return Reply(deep_object(self.marker))


def _quiet(argv: list[str]) -> tuple[int, str]:
    from kbench_dagster import cli

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = cli.main(argv)
    return code, out.getvalue()


def _check(name: str, code: int, got: dict[str, str], targets, failures: list[str]) -> str:
    """The rows of one kind: the targets wrong, the others passed, the command done; what went otherwise goes into
    failures."""
    if code != 0:
        failures.append(f"{name}: the command exited {code}")
    off = {k: o for k, o in got.items() if o != ("wrong" if k in targets else "pass")}
    if off or not set(targets) <= set(got):
        failures.append(f"{name}: {off or 'a deep item has no row'}")
    return f"{name} {sum(k in targets and o == 'wrong' for k, o in got.items())}/{len(targets)} deep wrong, " \
           f"{sum(o == 'pass' for o in got.values())} pass"


def _trials(ctx: JudgeContext, failures: list[str]) -> str:
    from sandbox.chatwork.trials import ToolTrials, select_trials

    units = select_trials(ToolTrials(), "select,classify,extract", 2)
    first = {u.family.id: u for u in reversed(units)}
    calls = [u for u in units if u.family.id == "select" and u.trial.oracle.kind != "no_call"]
    targets = {first["classify"].id: "words", first["extract"].id: "words"}
    targets.update({calls[0].id: "native", **({calls[1].id: "text"} if len(calls) > 1 else {})})
    run_id, db = f"deep-trials-{ctx.marker}", ctx.folder / f"trials-{ctx.marker}.duckdb"
    with ScriptedServer(DeepTrials(ctx.marker, targets), port=0, model_id=f"selftest-{ctx.marker}") as srv:
        code, _ = _quiet(["trials", "run", str(ctx.folder / f"{run_id}.json"), "--url", srv.url, "--only",
                          "select,classify,extract", "--limit", "2", "--run-id", run_id, "--runs",
                          str(ctx.folder / f"runs-{ctx.marker}"), "--work", str(ctx.folder / f"work-{ctx.marker}"),
                          "--db", str(db)])
    _, rows = ResultsStore(db).query("SELECT trial, outcome FROM trial_results WHERE run_id = ?", [run_id])
    said = _check("trials", code, dict(rows), targets, failures)
    stats, text = _quiet(["trials", "stats", run_id, "--json", "--db", str(db)])
    if stats != 0:
        failures.append(f"trials stats exited {stats}: {text.strip()[-160:]!r}")
    return said


class DeepTextJobs(TextJobPersona):
    def __init__(self, marker: str, targets: set[str]):
        super().__init__("oracle")
        self.name, self.marker, self.targets = f"deep-{marker}", marker, targets

    def respond(self, conv: Conversation) -> Reply:
        unit = self.answers.find(conv.first_user_text)
        return Reply(deep_object(self.marker)) if unit is not None and unit.id in self.targets \
            else super().respond(conv)


def _textjobs(ctx: JudgeContext, failures: list[str]) -> str:
    from sandbox.chatwork.textjobs import TextJobs

    targets = {TextJobs().select(job, 1)[0].id for job in ("notes", "news")}
    db, run_id = ctx.folder / f"textjobs-{ctx.marker}.duckdb", f"deep-textjobs-{ctx.marker}"
    with ScriptedServer(DeepTextJobs(ctx.marker, targets), port=0, model_id=f"selftest-{ctx.marker}") as srv:
        code, _ = _quiet(["textjobs", str(ctx.folder / f"{run_id}.json"), "--url", srv.url, "--only", "notes,news",
                          "--limit", "2", "--run-id", run_id, "--runs", str(ctx.folder / f"runs-{ctx.marker}"),
                          "--work", str(ctx.folder / f"work-{ctx.marker}"), "--db", str(db)])
    _, rows = ResultsStore(db).query("SELECT job || '.' || item, outcome FROM textjob_replies WHERE run_id = ?",
                                     [run_id])
    return _check("textjobs", code, dict(rows), targets, failures)


def _capability(ctx: JudgeContext, failures: list[str]) -> str:
    from kbench_dagster.selftest.capability_attack import AttackPersona, capability_run
    from sandbox.chatwork.capability import CapabilityItems

    units = CapabilityItems().select("structured_output")
    limit = next(n for n, u in enumerate(units, 1) if u.item.grader.kind == "structured"
                 and u.item.grader.format == "yaml")
    items = [u.item for u in units[:limit] if u.item.grader.kind == "structured"]

    def reply(item) -> str:  # in the item's own format, fenced as it asks
        body = f"services: {deep(ctx.marker)}" if item.grader.format == "yaml" else deep_object(ctx.marker)
        return f"```{item.grader.format}\n{body}\n```"

    persona = AttackPersona(f"deep-{ctx.marker}", items, reply)
    code, _, rows = capability_run(ctx, "deep-capability", persona, "structured_output", limit)
    got = {r["item"]: r["outcome"] for r in rows}
    return _check("capability", code, got, {i.id for i in items}, failures)


class DeepBreakdown(BreakdownPersona):
    def __init__(self, marker: str):
        super().__init__("oracle")
        self.name, self.marker = f"deep-{marker}", marker

    def respond(self, conv: Conversation):
        found = self.answers.find(conv.first_user_text)
        return Reply(deep_object(self.marker)) if found and found[0] == "prompt" else super().respond(conv)


def _breakdown(ctx: JudgeContext, failures: list[str]) -> str:
    db = ctx.folder / f"breakdown-{ctx.marker}.duckdb"
    with ScriptedServer(DeepBreakdown(ctx.marker), port=0, model_id=f"selftest-{ctx.marker}") as srv:
        code, _ = _quiet(["breakdown", str(ctx.folder / f"breakdown-{ctx.marker}.json"), "--url", srv.url,
                          "--agent-runs", "0", "--only", "invoices", "--runs", str(ctx.folder / f"runs-{ctx.marker}"),
                          "--work", str(ctx.folder / f"work-{ctx.marker}"), "--db", str(db)])
    # the outcome of every answer row of each way: the prompt way's one unit (deep), the item way's units
    _, rows = ResultsStore(db).query("SELECT way, min(outcome), max(outcome) FROM breakdown_answers GROUP BY way")
    got = {way: low if low == high else f"{low}..{high}" for way, low, high in rows}
    return _check("breakdown", code, got, {"prompt"}, failures)


def run(ctx: JudgeContext, agent: str) -> Verdict:
    failures: list[str] = []
    said = [part(ctx, failures) for part in (_trials, _textjobs, _capability, _breakdown)]
    return Verdict(not failures, "; ".join(said + failures))


FAMILY = JudgeFamily("deep_nesting", run, agents=("api",))
