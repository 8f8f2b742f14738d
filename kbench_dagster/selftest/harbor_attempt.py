"""One attempt of a judge family's Harbor task folder, through the real `kbench --suite FOLDER run` under an agent,
the attack played by the scripted server; what the run recorded is the family's evidence."""

from __future__ import annotations

import json
from pathlib import Path

from kbench_dagster.selftest.family import JudgeContext, Script, bash, say
from kbench_dagster.selftest.persona import TaskScripts
from sandbox.servers.scripted import ScriptedServer
from task_defs.models import Task


def run_attempt(ctx: JudgeContext, agent: str, suite_dir: Path, task: Task, script: Script,
                run_id: str) -> tuple[dict | None, Path, int]:
    """(the attempt's result, or None where none was recorded; its record folder; the command's exit code)."""
    from kbench_dagster.cli import main

    persona = TaskScripts(ctx.folder / "scripts")
    persona.add(task, script)
    with ScriptedServer(persona=persona, port=0) as srv:
        code = main(["--suite", str(suite_dir), "run", run_id, "--url", srv.url, "--model", srv.model_id,
                     "--agent", agent, "--conds", "base", "--runs", str(ctx.folder / "runs"),
                     "--work", str(ctx.folder / "work"), "--db", str(ctx.folder / "r.duckdb")])
    record = ctx.folder / "runs" / run_id / "base" / task.id / "s1"
    try:
        return json.loads((record / "result.json").read_text()), record, code
    except (OSError, ValueError):
        return None, record, code


def planting(files: dict[str, str], marker: str, folders: tuple[str, ...], python: str = "python3") -> Script:
    """The attack's replay: one bash call that makes `folders` and writes `files` (each executable) into the work
    folder with `python` (a path where the attack shadows python3 itself), then a short final message."""
    command = f"mkdir -p {' '.join(folders)} && {python} - <<'EOF'\nimport json, os\n" \
              f"for name, text in json.loads({json.dumps(json.dumps(files))}).items():\n" \
              "    open(name, 'w').write(text)\n" \
              "    os.chmod(name, 0o755)\nEOF"
    return [bash(command), say(f"Done ({marker}).")]
