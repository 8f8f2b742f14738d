"""`kbench kernels list|show|grade|catalog|precision|export|import`: the kernel tasks and the grader by hand.
kbench_dagster/cli.py registers it with `add_kernels_parser(sub)`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from task_defs.errors import TaskFileError

# Exit codes of `grade`: 0 ok or flagged, 3 skipped_no_gpu, 1 any failing status, 2 a usage or task error.
EXIT = {"ok": 0, "flagged": 0, "skipped_no_gpu": 3}


def cmd_list(args) -> int:
    from gpu.loader import load_kernel_suite

    tasks = load_kernel_suite()
    if args.markdown:
        print("| id | family | metric | dtype | title |\n|---|---|---|---|---|")
        for t in tasks:
            print(f"| {t.id} | {t.family} | {t.metric} | {t.dtype} | {t.title} |")
    else:
        for t in tasks:
            print(f"{t.id:28} {t.family:10} {t.metric:7} {t.dtype:6} {t.title}")
    print(f"{len(tasks)} kernel tasks", file=sys.stderr)
    return 0


def cmd_show(args) -> int:
    from gpu.loader import agent_files, get_task, private_reference, render_prompt

    try:
        t = get_task(args.task)
    except KeyError as exc:
        print(f"error: {exc.args[0]}", file=sys.stderr)
        return 2
    print(render_prompt(t))
    for name, path in agent_files(t).items():
        if name != "instruction.md":
            print(f"--- {name}\n{path.read_text(encoding='utf-8').rstrip()}")
    if args.all:
        print("--- grader only")
        print(f"hidden shapes (GPU): {t.shapes.hidden}")
        print(f"CPU shapes: public {t.shapes.cpu_public}, hidden {t.shapes.cpu_hidden}")
        print(f"private reference: {private_reference(t.id)}")
        print(f"timeouts: {t.timeouts.model_dump()}")
        print(f"precision: {t.precision.model_dump() if t.precision else 'not measured (tolerances by dtype)'}")
    return 0


def cmd_grade(args) -> int:
    from dataclasses import replace

    from gpu.device import pick_device
    from gpu.grader import GradeConfig, grade
    from gpu.loader import get_task

    try:
        task = get_task(args.task)
    except KeyError as exc:
        print(f"error: {exc.args[0]}", file=sys.stderr)
        return 2
    path = Path(args.path)
    if not path.exists():
        print(f"error: {path} does not exist", file=sys.stderr)
        return 2
    try:
        device = pick_device(None if args.device == "auto" else args.device)
    except RuntimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    config = replace(GradeConfig.for_device(device), transport=args.transport)
    result = grade(path, task, role="reference" if args.as_reference else "candidate", device=device, config=config,
                   keep_build=args.keep_build)
    text = json.dumps(result, indent=2, default=str)
    if args.json:
        Path(args.json).write_text(text + "\n")
    else:
        print(text)
    score = "-" if result["score"] is None else f"{result['score']:.4g} {result['unit']}"
    print(f"{task.id}: {result['status']} score {score} on {result['device'].get('name')}"
          + (f" ({result['reason'][:300]})" if result["reason"] else ""), file=sys.stderr)
    return EXIT.get(result["status"], 1)


def cmd_catalog(args) -> int:
    from gpu import catalog
    from gpu.loader import load_kernel_suite

    tasks = load_kernel_suite()
    if args.write:
        catalog.CATALOG_FILE.write_text(catalog.render(tasks), encoding="utf-8")
        print(f"wrote {catalog.CATALOG_FILE} ({len(tasks)} tasks)", file=sys.stderr)
        return 0
    if args.check:
        problem = catalog.stale(tasks)
        print(problem or f"{catalog.CATALOG_FILE} matches the {len(tasks)} tasks", file=sys.stderr)
        return 1 if problem else 0
    print(catalog.render(tasks), end="")
    return 0


def cmd_precision(args) -> int:
    from gpu import precision

    return precision.main([*args.tasks, *(["--write"] if args.write else [])])


def add_kernels_parser(subparsers) -> argparse.ArgumentParser:
    """Register `kernels` with its list, show and grade commands on an argparse subparsers object."""
    p = subparsers.add_parser("kernels", help="GPU kernel tasks: list them, show one, grade a kernel by hand")
    ks = p.add_subparsers(dest="kernels_command", required=True)
    s = ks.add_parser("list", help="the kernel tasks")
    s.add_argument("--markdown", action="store_true")
    s.set_defaults(func=_guard(cmd_list))
    s = ks.add_parser("show", help="what the agent gets for one task (the prompt, the reference, the stub)")
    s.add_argument("task")
    s.add_argument("--all", action="store_true", help="also the grader-only facts: hidden shapes, private reference")
    s.set_defaults(func=_guard(cmd_show))
    s = ks.add_parser("grade", help="grade a kernel file (or a folder holding the stub's file) for one task")
    s.add_argument("path")
    s.add_argument("--task", required=True)
    s.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto")
    s.add_argument("--json", metavar="FILE", help="write the result there instead of printing it")
    s.add_argument("--as-reference", action="store_true", help="lift the forbidden-op rule (for references)")
    s.add_argument("--keep-build", action="store_true", help="keep the build folder and say where it is")
    s.add_argument("--transport", choices=["auto", "direct", "staged"], default="auto",
                   help="how tensors reach the submission's process (staged: through host memory, for GPU sandboxes "
                        "that refuse CUDA IPC; auto picks it when a probe fails)")
    s.set_defaults(func=_guard(cmd_grade))
    s = ks.add_parser("catalog", help="CATALOG.json: family, metric, roofline, GPUs, keywords and tolerances per task")
    s.add_argument("--write", action="store_true", help="write gpu/CATALOG.json")
    s.add_argument("--check", action="store_true", help="exit 1 when gpu/CATALOG.json is stale")
    s.set_defaults(func=_guard(cmd_catalog))
    s = ks.add_parser("precision", help="measure tasks' tolerances: the floor and the feature-ignoring variant")
    s.add_argument("tasks", nargs="+")
    s.add_argument("--write", action="store_true", help="write the [precision] section into each task.toml")
    s.set_defaults(func=_guard(cmd_precision))
    from gpu.harbor_layout import add_parsers as add_harbor_parsers  # noqa: PLC0415

    add_harbor_parsers(ks, _guard)
    return p


def _guard(fn):
    def run(args) -> int:
        try:
            return fn(args)
        except TaskFileError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    return run
