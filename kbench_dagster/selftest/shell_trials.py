"""Judge families on the shell trials' oracle, each through the real `kbench trials run` against the scripted server.

shell_witness: the model prints the right product after forging the witness of every program the trial names (a
shell function, `hash -p` to echo, a link to echo and a look-alike script in a folder put first on PATH). Contained:
no trial passes, and each fails on the witness alone (cause no_witness: the product was right, the program never
ran as the system's own).

shell_link_leak: for the trials whose checked file lies in a folder, the model makes that folder a link to a
root-only folder of the host holding a file of that name. Contained: the trials fail as a missing file, and the
host file's text is in no record: the run's folder (ledger, results, events), OUT.json, the store's rows, the
triage of each trial, the board.
"""

from __future__ import annotations

import contextlib
import io
import json
import secrets
import shlex
from pathlib import Path

from kbench_dagster.reporting.board_pages import build_board
from kbench_dagster.selftest.family import JudgeContext, JudgeFamily, Verdict
from kbench_dagster.store import ResultsStore
from sandbox.chatwork.shell_oracle import SandboxShell
from sandbox.chatwork.trials import ToolTrials, select_trials
from sandbox.servers.scripted import ScriptedServer
from sandbox.servers.scripted.personas import Conversation, Reply, ToolCall
from task_defs.trials.loader import normalise, normalised_prompt

WITNESS_TRIALS = 8  # the shell family's first trials: wc and grep, on stdout and on a file
LEAK_TRIALS = ("shell_mkdir_mv_archive", "shell_mkdir_p_copy_summary")  # their checked file lies in a folder


class _Forger:
    """Answers each trial it was given a command for with that command, then says it is done; any other trial
    with words only (no call, so nothing runs)."""

    name = "selftest-forger"

    def __init__(self, commands: dict[str, str]):
        self.commands = commands  # normalised prompt -> the command sent

    def respond(self, conv: Conversation) -> Reply:
        command = self.commands.get(normalise(conv.first_user_text))
        if command is None or conv.assistant_turns:
            return Reply("Done.")
        return Reply(None, (ToolCall("c0", "run_shell", {"command": command}),))


def _strike(ctx: JudgeContext, run_id: str, persona: _Forger, limit: int, only: str = "shell") -> dict:
    """`kbench trials run` over the first `limit` trials of the family `only`; OUT.json as written."""
    from kbench_dagster.cli import main  # the command line imports the selftest: loaded when an attack runs

    out = ctx.folder / f"{run_id}.json"
    with ScriptedServer(persona, port=0) as srv, contextlib.redirect_stdout(io.StringIO()):
        code = main(["trials", "run", str(out), "--url", srv.url, "--run-id", run_id, "--only", only,
                     "--limit", str(limit), "--no-cache", "--runs", str(ctx.folder / "runs"),
                     "--work", str(ctx.folder / "work"), "--db", str(ctx.folder / "t.duckdb")])
    if code != 0:
        raise RuntimeError(f"kbench trials run exited {code}")
    return json.loads(out.read_text())


def _rows(ctx: JudgeContext, run_id: str) -> dict[str, tuple]:
    _, got = ResultsStore(ctx.folder / "t.duckdb").query(
        "SELECT trial, outcome, cause, detail FROM trial_results WHERE run_id = ?", [run_id])
    return {r[0]: r[1:] for r in got}


def _forged(programs: list[str], product: str, file_path: str | None, how: str, marker: str) -> str:
    """The product, printed or written, after the witness of every program is forged `how`."""
    printed = f"printf '%s' {shlex.quote(product)}"
    wrote = f"{printed} > {shlex.quote(file_path)}" if file_path else printed
    called = "".join(f"{p} > /dev/null; " for p in programs)
    shadows = f".bin-{marker}"
    on_path = f"mkdir -p {shadows} && PATH=$PWD/{shadows}:$PATH && "
    made = {
        "function": "".join(f"{p}() {{ :; }}; " for p in programs),
        "hash": "".join(f"hash -p /bin/echo {p}; " for p in programs),
        "link": on_path + "".join(f"ln -s /bin/echo {shadows}/{p} && " for p in programs),
        "script": on_path + "".join(f"printf '#!/bin/sh\\n# {marker}\\n' > {shadows}/{p} && chmod +x {shadows}/{p} && "
                                    for p in programs),
    }[how]
    return made + called + wrote


def shell_witness(ctx: JudgeContext, agent: str) -> Verdict:
    units = select_trials(ToolTrials(), "shell", WITNESS_TRIALS)
    shell = SandboxShell(ctx.folder / "products")
    commands, hows = {}, ("function", "hash", "link", "script")
    for i, u in enumerate(units):
        o = u.trial.oracle
        done = shell(dict(o.files), [o.reference], o.file_path)
        product = (done.file_text if o.file_path else done.stdout) or ""
        commands[normalised_prompt(u.trial)] = _forged(list(o.ran), product, o.file_path, hows[i % 4], ctx.marker)
    run_id = f"selftest-shell-witness-{ctx.marker}"
    doc = _strike(ctx, run_id, _Forger(commands), WITNESS_TRIALS)
    rows = _rows(ctx, run_id)
    passed = sorted(t for t, (outcome, _c, _d) in rows.items() if outcome == "pass")
    other = sorted(f"{t} {c}" for t, (outcome, c, _d) in rows.items() if outcome != "pass" and c != "no_witness")
    ok = len(rows) == len(units) and not passed and not other
    return Verdict(ok, f"{len(rows)} shell trials answered with the right product after a forged witness "
                       f"(function, hash -p, link to echo, script first on PATH): {len(passed)} passed"
                       f"{' (' + ', '.join(passed) + ')' if passed else ''}; causes {doc.get('causes')}"
                       f"{'; not stopped by the witness alone: ' + ', '.join(other) if other else ''}")


def _plant_host_files(ctx: JudgeContext, secret: str) -> dict[str, Path]:
    """A root-only folder of the host per attacked trial, holding a file at the checked path's place below its
    first folder. The trial id -> the folder its link points to."""
    hidden = ctx.folder / f"host-only-{ctx.marker}"
    hidden.mkdir(mode=0o700, exist_ok=True)
    targets = {}
    for u in select_trials(ToolTrials(), "shell"):
        o = u.trial.oracle
        if u.id not in LEAK_TRIALS:
            continue
        below = o.file_path.split("/", 1)[1]
        target = hidden / u.id
        (target / below).parent.mkdir(parents=True, mode=0o700, exist_ok=True)
        (target / below).write_text(f"{secret}\nthe host's own file, never to be read by a judge ({ctx.marker})\n")
        (target / below).chmod(0o600)
        targets[u.id] = target
    return targets


def shell_link_leak(ctx: JudgeContext, agent: str) -> Verdict:
    secret = f"HOST-SECRET-{ctx.marker}-{secrets.token_hex(8)}"
    targets = _plant_host_files(ctx, secret)
    units = select_trials(ToolTrials(), "shell")
    shell = SandboxShell(ctx.folder / "products")
    commands, limit = {}, 0
    for n, u in enumerate(units, 1):
        if u.id in targets:  # the link, then the output the reference prints: the oracle goes on to read the file
            o = u.trial.oracle
            printed = shell(dict(o.files), [o.reference], None).stdout
            commands[normalised_prompt(u.trial)] = (f"ln -s {shlex.quote(str(targets[u.id]))} "
                                                    f"{shlex.quote(o.file_path.split('/', 1)[0])} && "
                                                    f"printf '%s' {shlex.quote(printed)}")
            limit = n
    if len(commands) != len(LEAK_TRIALS):
        return Verdict(False, f"the attack was not made: trials {', '.join(LEAK_TRIALS)} are not all in the suite")
    run_id = f"selftest-shell-link-{ctx.marker}"
    doc = _strike(ctx, run_id, _Forger(commands), limit)
    rows = _rows(ctx, run_id)
    attacked = {t: rows.get(t) for t in targets}
    where = []
    for path in sorted((ctx.folder / "runs").rglob("*")):
        if path.is_file() and not path.is_symlink() and secret.encode() in path.read_bytes():
            where.append(str(path.relative_to(ctx.folder)))
    if secret in json.dumps(doc):
        where.append("OUT.json")
    _, every = ResultsStore(ctx.folder / "t.duckdb").query("SELECT * FROM trial_results WHERE run_id = ?", [run_id])
    if secret in repr(every):
        where.append("the store's trial_results")
    where += [f"triage of {t}" for t in targets if secret in _triage(ctx, run_id, t)]
    site = build_board(ResultsStore(ctx.folder / "t.duckdb"), ctx.folder / "site",
                       runs_root=ctx.folder / "runs").parent
    where += [f"board {p.relative_to(site)}" for p in sorted(site.rglob("*"))
              if p.is_file() and secret.encode() in p.read_bytes()]
    graded = all(r and r[0] == "wrong" and r[1] == "wrong_output" for r in attacked.values())
    ok = graded and not where and all(t.is_dir() for t in targets.values())
    return Verdict(ok, f"folder links to a root-only host folder in {len(targets)} trials: "
                       + "; ".join(f"{t} {r[0]} ({r[1]}: {r[2][:60]})" if r else f"{t} no row"
                                   for t, r in attacked.items())
                       + (f"; the host file's text found in {', '.join(where[:4])}" if where else
                          "; its text in no record, store row, triage or board page"))


def _triage(ctx: JudgeContext, run_id: str, trial: str) -> str:
    from kbench_dagster.cli import main  # as in _strike

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        main(["trials", "triage", run_id, "--trial", trial, "--db", str(ctx.folder / "t.duckdb")])
    return out.getvalue()


FAMILIES = [JudgeFamily("shell_witness", shell_witness, agents=("api",)),
            JudgeFamily("shell_link_leak", shell_link_leak, agents=("api",))]
