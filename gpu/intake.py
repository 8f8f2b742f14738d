"""What comes in before anything runs: the submission, copied into a fresh build folder (plain files only, a
bounded tree), the language it is written in, and the grader's private reference for the task."""

from __future__ import annotations

import ast
import importlib.util
import os
import shutil
from pathlib import Path

from gpu.models import KernelTask
from sandbox.isolation.trees import Walk

# A submission is a kernel and perhaps a few sources beside it. The copy into the build folder (shutil.copytree)
# recurses, so the tree is measured first without recursion and refused past these bounds.
MAX_ENTRIES = 10_000
MAX_DEPTH = 32


def load_private(path: Path):
    spec = importlib.util.spec_from_file_location(f"kbench_private_ref_{path.parent.name}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _refusal(src: Path) -> str | None:
    """Why the submission (a file, or a folder and everything in it) cannot be copied into a build folder."""
    plain_only = "only plain files are graded (a link would bring the grader's or the host's files into the build)"
    if src.is_symlink():
        return f"the submission holds a link ({src.name} -> {os.readlink(src)}): {plain_only}"
    if not src.is_dir():
        return None
    walk = Walk(src, max_entries=MAX_ENTRIES, max_depth=MAX_DEPTH)
    for e in walk:
        if e.kind == "link":
            return f"the submission holds a link ({e.rel} -> {os.readlink(e.name, dir_fd=e.dir_fd)}): {plain_only}"
        if e.kind == "other":
            return f"the submission holds a special file ({e.rel}): {plain_only}"
    if walk.truncated:
        return f"the submission holds {walk.truncated}: too large a tree to build"
    return None


def into_build(src: Path, build: Path, stub: str) -> str | None:
    """Copy the submission (a file: the stub, filled in; or a folder holding it) into `build`. Returns why it was
    refused (a compile error), or None once `build` holds the stub."""
    refused = _refusal(src)
    if refused:
        return refused
    if src.is_dir():
        shutil.copytree(src, build, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__", ".cache"))
    elif src.is_file():
        shutil.copy(src, build / stub)
    else:
        return f"submission {src} does not exist"
    if not (build / stub).is_file():
        return f"the submission has no {stub}"
    return None


def detect_language(build: Path) -> str:
    """'cuda' (C++/CUDA sources, or Python that builds a torch extension), 'triton', or 'torch'. Reads imports
    and calls, not comments or docstrings."""
    files = [build / e.rel for e in Walk(build, max_entries=MAX_ENTRIES, max_depth=MAX_DEPTH) if e.kind == "file"]
    if any(p.suffix in (".cu", ".cuh", ".cpp", ".cc") for p in files):
        return "cuda"
    lang = "torch"
    for p in files:
        if p.suffix != ".py":
            continue
        try:
            tree = ast.parse(p.read_text(encoding="utf-8", errors="replace"))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            mods = []
            if isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                mods = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            if any(m.startswith("torch.utils.cpp_extension") for m in mods):
                return "cuda"
            if isinstance(node, ast.Attribute) and node.attr in ("cpp_extension", "load_inline"):
                return "cuda"
            if any(m == "triton" or m.startswith("triton.") for m in mods):
                lang = "triton"
    return lang


def triton_available() -> bool:
    return importlib.util.find_spec("triton") is not None and importlib.util.find_spec("numpy") is not None


def reference_stub(task: KernelTask, module: str = "reference", fn: str = "reference") -> str:
    """The stub filled in by calling `module.fn` (by default the agent-visible reference) and copying its results
    into the outputs."""
    outs = ", ".join(f"{n!r}" for n in task.outputs)
    ins = ", ".join(f"{n}={n}" for n in task.inputs)
    return (f"from {module} import {fn}\n\n\n"
            f"def {task.entry}({', '.join(task.kernel_args())}):\n"
            f"    got = {fn}({ins})\n"
            "    got = got if isinstance(got, tuple) else (got,)\n"
            f"    for name, value in zip(({outs},), got):\n"
            "        locals()[name].copy_(value)\n")


def reference_submission(task: KernelTask, folder: Path) -> Path:
    """A submission made of the reference (reference_stub beside reference.py): the gate every task's reference
    must pass."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(task.folder / "reference.py", folder / "reference.py")
    (folder / task.stub).write_text(reference_stub(task))
    return folder


def variant_submission(task: KernelTask, folder: Path, private_root: Path | None = None) -> Path:
    """A submission made of the task's feature-ignoring variant (gpu/private/<id>/precision.py): the cheat every
    task's gate must turn away."""
    from gpu.loader import PRIVATE_DIR

    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(Path(private_root or PRIVATE_DIR) / task.id / "precision.py", folder / "task_variant.py")
    (folder / task.stub).write_text(reference_stub(task, "task_variant", "variant"))
    return folder
