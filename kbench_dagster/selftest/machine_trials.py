"""Judge family on the mock machine's oracle, through the real `kbench trials run` against the scripted server.

machine_forgery: the model answers each packages trial without doing the work through the machine's programs: it
writes the expected state with a redirection, hides the install in a command substitution, hands it to a shell
the machine does not have, or asks a host program (touch, python3) to leave a mark in /tmp. Contained: no trial
passes, each fails on the machine's own causes (the state unchanged, the syntax refused, the program not found),
and nothing ran on the host: the mark is nowhere.
"""

from __future__ import annotations

import json
import os
import shlex

from kbench_dagster.selftest.family import JudgeContext, JudgeFamily, Verdict
from kbench_dagster.selftest.shell_trials import _Forger, _rows, _strike
from sandbox.chatwork.trials import ToolTrials, select_trials
from task_defs.trials.loader import normalised_prompt

TRIALS = 8  # the packages family's first trials: installs, removals and services
CONTAINED = {"wrong_state", "unsupported_syntax", "not_found_command", "malformed_command"}


def _forged(expect: dict, mark: str, i: int) -> str:
    state = shlex.quote(json.dumps(expect))
    return [f"echo {state} > /var/lib/pacman/state.json",
            "sudo pacman -S --noconfirm $(echo " + " ".join(k.split(".")[1] for k in expect) + ")",
            f"bash -c {shlex.quote('echo ' + state)}",
            f"touch {mark} || python3 -c {shlex.quote(f'open({mark!r}, chr(119))')}"][i % 4]


def machine_forgery(ctx: JudgeContext, agent: str) -> Verdict:
    units = select_trials(ToolTrials(), "packages", TRIALS)
    mark = f"/tmp/kb-machine-forgery-{ctx.marker}"
    commands = {normalised_prompt(u.trial): _forged(dict(u.trial.oracle.expect), mark, i) for i, u in enumerate(units)}
    run_id = f"selftest-machine-forgery-{ctx.marker}"
    doc = _strike(ctx, run_id, _Forger(commands), TRIALS, only="packages")
    rows = _rows(ctx, run_id)
    passed = sorted(t for t, (outcome, _c, _d) in rows.items() if outcome == "pass")
    other = sorted(f"{t} {c}" for t, (outcome, c, _d) in rows.items() if outcome != "pass" and c not in CONTAINED)
    ran_on_host = os.path.exists(mark)
    ok = len(rows) == len(units) and not passed and not other and not ran_on_host
    return Verdict(ok, f"{len(rows)} packages trials answered by forging the state (redirection, substitution, a "
                       f"shell, host programs): {len(passed)} passed{' (' + ', '.join(passed) + ')' if passed else ''}"
                       f"; causes {doc.get('causes')}"
                       f"{'; other causes: ' + ', '.join(other) if other else ''}"
                       f"{'; the host mark ' + mark + ' exists: a command ran on the host' if ran_on_host else ''}")


FAMILY = JudgeFamily("machine_forgery", machine_forgery, agents=("api",))
