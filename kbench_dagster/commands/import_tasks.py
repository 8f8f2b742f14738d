"""`kbench import-tasks DIR [--write F.json]`: Harbor / Terminal-Bench task folders (task_defs/importers/harbor.py)
as a suite. It lists each task, imported or to be skipped and why, and says how to validate and run it: `--suite DIR`
takes the folders wherever a suite is taken, so imported tasks go through the same validate, the one run loop and
the same store as ours. `--write` keeps the suite as one JSON fixture file too."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from kbench_dagster.terminal import visible
from task_defs.canary import CANARY
from task_defs.errors import TaskFileError
from task_defs.importers.harbor import is_harbor_source, load_harbor


def cmd_import_tasks(args) -> int:
    source = Path(args.dir)
    if not is_harbor_source(source):
        raise TaskFileError(source, None, "holds no Harbor task folder (a folder with instruction.md, task.toml, "
                                          "environment/, tests/test.sh and solution/solve.sh)")
    name, fixtures, _files = load_harbor(source)
    for fx, _toml in fixtures:
        state = f"skipped: {fx.unavailable}" if fx.unavailable else \
            f"imported, seen at {next((k for k, v in fx.mounts.items() if v == '.'), 'its own folder')}"
        print(f"{fx.task_id:32} {visible(state)}", file=sys.stderr)
    runnable = sum(1 for fx, _ in fixtures if not fx.unavailable)
    print(f"import-tasks: {len(fixtures)} task(s) from {source} as suite {name}: {runnable} runnable here, "
          f"{len(fixtures) - runnable} skipped until the docker backend", file=sys.stderr)
    if args.write:
        doc = {"canary": CANARY, "suite": name,
               "tasks": [fx.model_dump(exclude_defaults=True) for fx, _ in fixtures]}
        Path(args.write).write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"import-tasks: wrote {args.write} (use it as --suite {args.write})", file=sys.stderr)
    print(f"next: kbench --suite {source} validate; kbench --suite {source} run --model M --url URL ...",
          file=sys.stderr)
    return 0


def add_import_tasks_parser(sub) -> None:
    s = sub.add_parser("import-tasks", help="Harbor / Terminal-Bench task folders as a suite: what runs here")
    s.add_argument("dir", help="a task folder or a folder of them")
    s.add_argument("--write", metavar="F.json", help="also keep the suite as a JSON fixture file")
    s.set_defaults(func=cmd_import_tasks)
