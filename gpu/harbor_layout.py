"""Kernel tasks in Harbor's layout, as KBench ships its tasks, and back.

    <family>/<id>/instruction.md     the prompt the agent reads (with the grading facts and the precision)
    <family>/<id>/task.toml          Harbor's: metadata, verifier/agent timeouts, environment (GPUs, CPUs, memory)
    <family>/<id>/environment/       Dockerfile, reference.py and the stub the agent edits (at /app)
    <family>/<id>/tests/test.sh      runs verify.py: grades /app/<stub>, writes /logs/verifier/reward.json (the
                                     score, uncapped, 0 when incorrect) and details.json (the grader's whole record)
    <family>/<id>/tests/grader/      the grader's code, the task's own files and its private reference and precision
                                     pair: all a verifier needs, none of it in the agent's image

`import_tasks` reads such folders back into gpu/tasks and gpu/private form, so a task travels out and in unchanged.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from gpu.loader import PRIVATE_DIR, TASKS_DIR, load_kernel_task, render_prompt
from sandbox.isolation.trees import Walk
from task_defs.canary import CANARY
from task_defs.errors import TaskFileError

REPO = Path(__file__).resolve().parent.parent
GRADER_ENTRY = ("gpu.grader", "gpu.loader", "gpu.worker", "gpu.precision")
OWN_PACKAGES = ("gpu", "task_defs", "sandbox")  # never the tasks' venv: the image brings torch and pydantic
TORCH_IMAGE = "pytorch/pytorch:2.13.0-cuda12.8-cudnn9-devel"  # the torch our pins grade with, with nvcc for CUDA C++

# The verifier's script; TASK_ID is replaced by the task's id. Run isolated (-I): neither the variables nor the
# current folder (the agent's /app, perhaps) put anything on its import path.
VERIFY = f"# {CANARY}\n" + '''"""Grades /app's kernel with the bundled grader and writes Harbor's reward files."""
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "grader"))
from gpu.grader import grade  # noqa: E402
from gpu.loader import load_kernel_task  # noqa: E402

task = load_kernel_task(HERE / "grader" / "tasks" / "TASK_ID", HERE / "grader" / "private")
kernel = Path(os.environ.get("KBENCH_KERNEL", "/app"))  # the folder: a kernel may import files beside it
logs = Path(os.environ.get("KBENCH_VERIFIER_LOGS", "/logs/verifier"))
logs.mkdir(parents=True, exist_ok=True)
result = grade(kernel, task, role="candidate", private_root=HERE / "grader" / "private")
passed = result["status"] in ("ok", "flagged")
(logs / "reward.json").write_text(json.dumps({"reward": result["score"] if passed else 0.0}) + "\\n")
(logs / "details.json").write_text(json.dumps(result, indent=1, default=str) + "\\n")
print(task.id, result["status"], result["score"], result["reason"][:300])
'''

TEST_SH = f"""#!/usr/bin/env bash
# {CANARY}
set -u
mkdir -p /logs/verifier
python3 -I /tests/verify.py
"""


def grader_files() -> list[Path]:
    """The repository's modules the grader loads, found by importing it in a fresh interpreter."""
    code = ("import json, sys\n" + "".join(f"import {m}\n" for m in GRADER_ENTRY)
            + "print(json.dumps([getattr(m, '__file__', None) for m in list(sys.modules.values())]))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True).stdout
    files = {Path(f).resolve() for f in json.loads(out) if f}
    return sorted(f for f in files if f.is_file() and REPO in f.parents
                  and f.relative_to(REPO).parts[0] in OWN_PACKAGES and f.suffix == ".py")


def _harbor_toml(task) -> str:
    tags = json.dumps(["gpu-kernel", task.family, *task.keywords])
    return (f"# {CANARY}\nversion = \"1.0\"\n\n[metadata]\nauthor_name = \"kbench_dagster\"\ndifficulty = \"hard\"\n"
            f"category = \"gpu-kernels\"\ntags = {tags}\nkbench_task = \"{task.id}\"\nkbench_family = "
            f"\"{task.family}\"\nkbench_metric = \"{task.metric}\"\n\n[verifier]\n"
            f"timeout_sec = {int(task.timeouts.total_s)}\n\n[agent]\ntimeout_sec = 3600\n\n[environment]\n"
            f"build_timeout_sec = 1800\ncpus = 8\nmemory_mb = 65536\ngpus = {task.gpus}\n")


def _dockerfile(task) -> str:
    return (f"# {CANARY}\n# The agent's image: torch, Triton and nvcc; no network when the agent runs.\n"
            f"FROM {TORCH_IMAGE}\nRUN pip install --no-cache-dir 'pydantic>=2,<3'\nWORKDIR /app\n"
            f"COPY reference.py {task.stub} /app/\n")


def export_task(task, out: Path, modules: list[Path], private_root: Path | None = None) -> Path:
    """One task's Harbor folder under out/<family>/<id>; returns it."""
    dest = Path(out) / task.family / task.id
    if dest.exists():
        shutil.rmtree(dest)
    env, tests = dest / "environment", dest / "tests"
    env.mkdir(parents=True)
    (dest / "instruction.md").write_text(f"<!-- {CANARY} -->\n" + render_prompt(task).split("\n", 1)[1],
                                         encoding="utf-8")
    (dest / "task.toml").write_text(_harbor_toml(task), encoding="utf-8")
    (env / "Dockerfile").write_text(_dockerfile(task), encoding="utf-8")
    for name in ("reference.py", task.stub):
        shutil.copy2(task.folder / name, env / name)
    grader = tests / "grader"
    shutil.copytree(task.folder, grader / "tasks" / task.id, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(Path(private_root or PRIVATE_DIR) / task.id, grader / "private" / task.id,
                    ignore=shutil.ignore_patterns("__pycache__"))
    for f in modules:
        target = grader / f.relative_to(REPO)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(f, target)
    (tests / "verify.py").write_text(VERIFY.replace("TASK_ID", task.id), encoding="utf-8")
    (tests / "test.sh").write_text(TEST_SH, encoding="utf-8")
    (tests / "test.sh").chmod(0o755)
    return dest


def export_tasks(tasks, out: Path) -> list[Path]:
    modules = grader_files()
    return [export_task(t, out, modules) for t in tasks]


def exported_folders(source: Path) -> list[Path]:
    """Harbor folders holding a kbench kernel task (tests/grader/tasks/<id>), in order; links are not followed."""
    found = []
    for root, dirs, _files in os.walk(source):  # os.walk never descends through a linked folder
        here = Path(root)
        if here.name == "tasks" and here.parent.name == "grader" and here.parent.parent.name == "tests":
            found += [here.parents[2] for d in dirs if (here / d / "task.toml").is_file()]
    return sorted(set(found))


def _first_link(folder: Path) -> Path | None:
    """A link anywhere in the folder: imported files are copied into the repository, never through a link."""
    return next((folder / e.rel for e in Walk(folder) if e.kind == "link"), None)


def import_tasks(source: Path, tasks_dir: Path = TASKS_DIR, private_dir: Path = PRIVATE_DIR,
                 force: bool = False) -> tuple[list[str], list[TaskFileError]]:
    """Each exported folder under `source` back into tasks_dir/<id> and private_dir/<id>, loaded to check it.
    A broken one is named and skipped; the others still come in."""
    done, refused = [], []
    for folder in exported_folders(source):
        link = _first_link(folder)
        if link is not None:
            refused.append(TaskFileError(link, None, "a link: an exported task folder holds plain files only"))
            continue
        inner = next(p for p in sorted((folder / "tests" / "grader" / "tasks").iterdir()) if p.is_dir())
        tid = inner.name
        private = folder / "tests" / "grader" / "private" / tid
        try:
            load_kernel_task(inner, private.parent)
        except TaskFileError as exc:
            refused.append(exc)
            continue
        targets = ((inner, Path(tasks_dir) / tid), (private, Path(private_dir) / tid))
        there = next((dst for _, dst in targets if dst.exists()), None)
        if there is not None and not force:
            refused.append(TaskFileError(there, None, "already exists (--force replaces it)"))
            continue
        for src, dst in targets:
            if dst.exists():
                shutil.rmtree(dst)
            shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__"))
        done.append(tid)
    return done, refused


def cmd_export(args) -> int:
    from gpu.loader import get_task, load_kernel_suite

    tasks = [get_task(t) for t in args.task] if args.task else load_kernel_suite()
    out = export_tasks(tasks, Path(args.out))
    print(f"wrote {len(out)} task folders in Harbor's layout under {args.out}", file=sys.stderr)
    return 0


def cmd_import(args) -> int:
    done, refused = import_tasks(Path(args.source), Path(args.tasks_dir), Path(args.private_dir), args.force)
    for exc in refused:
        print(f"error: {exc}", file=sys.stderr)
    print(f"imported {len(done)} kernel tasks: {', '.join(done) or 'none'}", file=sys.stderr)
    return 1 if refused or not done else 0


def add_parsers(ks, guard) -> None:
    s = ks.add_parser("export", help="write kernel tasks in Harbor's layout (KBench's): instruction, task.toml, "
                                     "environment/, tests/test.sh writing reward.json and details.json")
    s.add_argument("out")
    s.add_argument("--task", action="append", help="only this task (repeatable); default every task")
    s.set_defaults(func=guard(cmd_export))
    s = ks.add_parser("import", help="read exported Harbor task folders back into kernel tasks")
    s.add_argument("source")
    s.add_argument("--tasks-dir", default=str(TASKS_DIR))
    s.add_argument("--private-dir", default=str(PRIVATE_DIR))
    s.add_argument("--force", action="store_true", help="replace tasks that already exist")
    s.set_defaults(func=guard(cmd_import))
