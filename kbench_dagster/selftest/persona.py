"""The model of a selftest run: one replay script per task, picked by the task's prompt.

A run of the selftest holds an attack task and an ordinary one (and sometimes more), each with its own replay
script; the scripted server's replay persona plays one script to every conversation, so this persona sends each
conversation to the script of the task its first user message is the prompt of. A request that matches no task of
the run did not come from an agent doing its task: it is kept as foreign, the evidence that something in a sandbox
reached the model on its own.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

from sandbox.servers.scripted.oracle import normalize
from sandbox.servers.scripted.personas import Conversation, ReplayPersona, Reply
from task_defs.models import Task


class TaskScripts:
    """A persona for ScriptedServer: `add(task, lines)` before the run, `foreign` after it."""

    name = "replay"

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self._scripts: list[tuple[str, ReplayPersona]] = []
        self._lock = threading.Lock()
        self.foreign: list[str] = []  # the first user text of each request that belongs to no task

    def add(self, task: Task, lines: list[dict]) -> Path:
        """Write the task's replay file (one reply per line) and play it to conversations about the task."""
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / f"{task.id}.jsonl"
        path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
        self._scripts.append((normalize(task.all_prompts[0]), ReplayPersona(path)))
        return path

    def respond(self, conv: Conversation) -> Reply:
        asked = normalize(conv.first_user_text)
        for prompt, script in self._scripts:
            if prompt and prompt in asked:
                return script.respond(conv)
        with self._lock:
            self.foreign.append(conv.first_user_text[:200])
        return Reply("This request is not part of the selftest.", note="foreign request")
