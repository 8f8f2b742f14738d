"""What the capability judge families share: a model that answers each item of the suite with the attack's reply
for it, and one real `kbench capability run` against it, read back from the store it wrote."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from kbench_dagster.selftest.family import JudgeContext
from kbench_dagster.store import ResultsStore
from sandbox.servers.scripted import ScriptedServer
from sandbox.servers.scripted.personas import Conversation, Reply
from task_defs.capability.models import Item

TIMEOUT_S = 240.0  # a few items, each graded in seconds: far past this the command has hung


class AttackPersona:
    """Answers the first prompt of each item it is given with `reply(item)`; anything else with a plain line."""

    def __init__(self, name: str, items: list[Item], reply: Callable[[Item], str]):
        self.name = name
        self._items = [(" ".join(i.prompts[0].split())[:120], i) for i in items]
        self._reply = reply

    def respond(self, conv: Conversation) -> Reply:
        first = " ".join(conv.first_user_text.split())
        item = next((i for key, i in self._items if first.startswith(key)), None)
        if item is None:
            return Reply("No item of this attack matches the prompt.", note="no item")
        return Reply(self._reply(item), note=f"{item.id}: the attack's reply")


def capability_run(ctx: JudgeContext, run_id: str, persona: AttackPersona, only: str, limit: int,
                   judges: tuple[str, ...] = ()) -> tuple[int, str, list[dict]]:
    """`kbench capability run` of the first `limit` items of `only` against the persona, in ctx.folder: its exit
    code, what it printed, and the run's capability_results rows. The command runs as a process of its own: the
    selftest runs rows in threads, and one row's redirected stdout would take another's (and the table's) lines."""
    folder = ctx.folder
    db = folder / f"store-{ctx.marker}.duckdb"
    argv = ["capability", "run", str(folder / f"{run_id}-{ctx.marker}.json"), "--seeds", "1", "--only", only,
            "--limit", str(limit), "--run-id", f"{run_id}-{ctx.marker}", "--runs", str(folder / f"runs-{ctx.marker}"),
            "--work", str(folder / f"work-{ctx.marker}"), "--db", str(db), "--context-tokens", "4096"]
    for judge in judges:  # MODEL@URL each: two or more make a panel
        argv += ["--judge", judge]
    with ScriptedServer(persona, port=0, model_id=f"selftest-{ctx.marker}") as srv:
        done = subprocess.run([sys.executable, "-m", "kbench_dagster.cli", *argv, "--url", srv.url], cwd=folder,
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=TIMEOUT_S)
    cols, found = ResultsStore(Path(db)).query(
        "SELECT item, grader, outcome, score, detail FROM capability_results WHERE run_id = ? ORDER BY item",
        [f"{run_id}-{ctx.marker}"])
    return done.returncode, done.stdout + done.stderr, [dict(zip(cols, r)) for r in found]
