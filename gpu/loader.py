"""Load kernel task folders into models; every problem names the file and the field (as task_defs does)."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from gpu.models import KernelTask
from task_defs.canary import CANARY
from task_defs.errors import TaskFileError
from task_defs.loader import load_toml_model

TASKS_DIR = Path(__file__).parent / "tasks"
PRIVATE_DIR = Path(__file__).parent / "private"  # the grader's copies of the references; never given to an agent
AGENT_FILES = ("instruction.md", "reference.py")  # plus the task's stub


def _field_of(err: dict) -> tuple[str, str]:
    """(field, message). Checks that span fields start their message with the field they blame."""
    msg = err["msg"].removeprefix("Value error, ")
    if not err["loc"]:
        m = re.match(r"([a-z_]+): (.*)", msg, re.S)
        if m and m.group(1) in KernelTask.model_fields:
            return m.group(1), m.group(2)
        return "(task)", msg
    return ".".join(str(x) for x in err["loc"]), msg


def private_reference(task_id: str, private_root: Path | None = None) -> Path:
    return Path(private_root or PRIVATE_DIR) / task_id / "reference.py"


def load_kernel_task(folder: Path, private_root: Path | None = None, measured: bool = True) -> KernelTask:
    """The task in `folder`; unless `measured` is False (the precision tool measuring a new task), a task without
    its measured [precision] section is refused: no tolerance is ever guessed."""
    folder = Path(folder)
    toml_path = folder / "task.toml"
    task = load_toml_model(toml_path, KernelTask, _field_of)
    if measured and task.precision is None:
        raise TaskFileError(toml_path, "precision", f"not measured yet: run `kbench kernels precision {task.id} "
                                                     "--write` (gpu/private/<id>/precision.py holds what it needs)")
    if task.id != folder.name:
        raise TaskFileError(toml_path, "id", f"must equal the folder name {folder.name!r}, got {task.id!r}")
    task._folder = folder
    for name in (*AGENT_FILES, task.stub):
        if not (folder / name).is_file():
            raise TaskFileError(toml_path, "stub" if name == task.stub else None, f"missing {name}")
    priv = private_reference(task.id, private_root)
    if not priv.is_file():
        raise TaskFileError(priv, None, "missing the grader's private reference")
    for f in (toml_path, *(folder / n for n in (*AGENT_FILES, task.stub)), priv):
        if CANARY.encode() not in f.read_bytes():
            raise TaskFileError(f, "canary", f"file lacks the canary string {CANARY!r}")
    return task


def load_kernel_suite(root: Path | None = None, private_root: Path | None = None) -> list[KernelTask]:
    root = Path(root or TASKS_DIR)
    if not root.is_dir():
        raise TaskFileError(root, None, "kernel task folder does not exist")
    tasks = [load_kernel_task(p, private_root) for p in sorted(root.iterdir())
             if p.is_dir() and not p.name.startswith(("_", "."))]
    if not tasks:
        raise TaskFileError(root, None, "no kernel tasks")
    return tasks


def get_task(task_id: str, root: Path | None = None, private_root: Path | None = None) -> KernelTask:
    folder = Path(root or TASKS_DIR) / task_id
    if not folder.is_dir():
        known = ", ".join(t.id for t in load_kernel_suite(root, private_root))
        raise KeyError(f"no kernel task {task_id!r}; known: {known}")
    return load_kernel_task(folder, private_root)


def sha256_file(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def agent_files(task: KernelTask) -> dict[str, Path]:
    """What an agent's work folder gets: the instruction, the reference it may read, and the stub it edits."""
    return {name: task.folder / name for name in (*AGENT_FILES, task.stub)}


def render_prompt(task: KernelTask) -> str:
    """The instruction plus the facts the grader will hold the kernel to, generated from task.toml."""
    shapes = "\n".join(f"  - {s}" for s in task.shapes.public)
    formula = task.flops if task.metric == "tflops" else task.bytes
    lines = [
        (task.folder / "instruction.md").read_text(encoding="utf-8").rstrip(),
        "",
        "## How this is graded",
        f"- Edit `{task.stub}`: define `{task.entry}({', '.join(task.kernel_args())})`. It is called with keyword",
        "  arguments and must write its results into the output tensors (" + ", ".join(task.outputs) + ");"
        " its return value is ignored.",
        "- Inputs must be left unchanged"
        + (f"; {', '.join(task.inplace)} are updated in place." if task.inplace else "."),
        f"- Correctness first: every public and hidden shape, several random seeds and input distributions"
        f" ({', '.join(task.distributions)}). An incorrect kernel scores 0.",
        f"- Score: {task.unit}, with work = `{formula}` per call, geometric mean over shapes.",
        f"- Public shapes:\n{shapes}",
    ]
    if task.forbidden_ops:
        lines.append(f"- Forbidden inside the kernel: {', '.join(task.forbidden_ops)}.")
    return "\n".join(lines + _precision_lines(task)) + "\n"


def _precision_lines(task: KernelTask) -> list[str]:
    """The task's measured tolerances, as the agent should read them (gpu/precision.py measured them)."""
    if task.precision is None:
        return []
    lines = ["", "## Precision",
             "A floating output passes when every element is within t x (|want| + m) of the reference, m being the "
             "mean |want| of that output. Each t was measured: the numerical floor is the largest error between "
             "the reference and an independent correct implementation, and t is a few times it.", ""]
    for name, p in task.precision.outputs.items():
        lines.append(f"- `{name}`: exact (every element equal)" if p.exact else
                     f"- `{name}`: t = {p.tolerance:g}, numerical floor {p.floor:.2g}; the wrong variant is off by "
                     f"{p.variant_error:.2g}")
    return [*lines, "", f"The wrong variant the tolerances were checked against: {task.precision.variant}."]
