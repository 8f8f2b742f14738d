"""`kbench import-tasks DIR [--build] [--write F.json] [--details]`: Harbor / Terminal-Bench task folders
(task_defs/importers/harbor.py) as a suite, or a dataset of a Harbor registry file laid out as such folders
(`import-tasks registry.json --dataset NAME@VERSION --mirror DIR`, task_defs/importers/harbor_registry.py).
It says how many run here, a table of why the others do not (each task on request), and how to validate and run
them: `--suite DIR` takes the folders wherever a suite is taken, so imported tasks go through the same validate, the
one run loop and the same store as ours. `--write` keeps the suite as one JSON fixture file too."""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

from kbench_dagster.commands import task_envs
from kbench_dagster.progress import Progress
from kbench_dagster.terminal import visible
from task_defs.canary import CANARY
from task_defs.errors import TaskFileError
from task_defs.importers.harbor import is_harbor_source, is_multi_step, load_harbor, task_folders
from task_defs.importers.harbor_registry import is_registry, lay_dataset, pick, read_registry

RUNNABLE = ("Runnable means the sandbox can give the task its environment and run its verifier (tests/test.sh) "
            "here: laid from its Dockerfile on the host's system, or its own image, built from that Dockerfile on the "
            "docker backend (--build builds them ahead); solution/solve.sh is its reference, which `validate` and "
            "the oracle run")


def reason_kind(why: str) -> str:
    """What a reason says, without the task's own details (its line, its command, its paths): a row of the table."""
    why = re.sub(r"^WORKDIR \S+: ", "WORKDIR: ", why)  # the same refusal, whatever the path under it
    step = re.match(r"environment/Dockerfile line \d+: (\w+)\b(.*)", why)
    if step:
        word, rest = step.groups()
        tail = rest.rsplit(": ", 1)[-1] if ": " in rest else re.sub(r"\S*/\S*", "PATH", rest).strip()
        return f"Dockerfile {word}: {tail}"[:100]
    return re.sub(r"line \d+", "line N", re.sub(r"\(.*\)", "", why)).strip()[:100]


def _unread(source: Path) -> list[tuple[Path, str]]:
    """Folders with a task.toml that the importer does not read as a task, and why."""
    folders = [source] if (source / "task.toml").is_file() else sorted(p.parent for p in source.glob("*/task.toml"))
    return [(f, "a task.toml without instruction.md (nor steps/*/instruction.md)")
            for f in folders if not (f / "instruction.md").is_file() and not is_multi_step(f)]


def _from_registry(args) -> tuple[Path, list[TaskFileError]]:
    """A dataset of a Harbor registry file, laid out as a folder of task folders: that folder, and the tasks that
    are not at hand."""
    registry = Path(args.dir)
    dataset = pick(read_registry(registry), args.dataset, registry)
    into = Path(args.into) if args.into else Path.home() / ".cache" / "kbench" / "datasets" / dataset.qualified
    mirrors = [Path(m) for m in args.mirror or []]
    refused = lay_dataset(dataset, registry, mirrors, into)
    print(f"import-tasks: dataset {dataset.qualified} of {registry}: {len(dataset.tasks) - len(refused)} of "
          f"{len(dataset.tasks)} task folder(s) at hand, laid out in {into}", file=sys.stderr)
    return into, refused


def cmd_import_tasks(args) -> int:
    source, missing = _from_registry(args) if is_registry(Path(args.dir)) else (Path(args.dir), [])
    if args.dataset and not missing and source == Path(args.dir):
        raise TaskFileError(source, "--dataset", "names a dataset of a Harbor registry file (registry.json); "
                                                 "this is not one")
    if missing and not any(p.is_dir() for p in source.iterdir()):  # nothing of the dataset at hand
        raise missing[0]
    if not is_harbor_source(source):
        raise TaskFileError(source, None, "holds no Harbor task folder (a folder with instruction.md, task.toml, "
                                          "environment/, tests/test.sh and solution/solve.sh)")
    refused: list[TaskFileError] = []
    bar = Progress(len(task_folders(source)), "read")
    name, fixtures, _files = load_harbor(source, refused, each=lambda: bar.step(True))
    envs = task_envs.states(fixtures, build=args.build)

    def blocked(fx) -> str | None:
        env = envs.get(fx.task_id)
        return fx.unavailable or (env.state if env and env.state != task_envs.BUILT else None)

    runnable = [fx for fx, _ in fixtures if not blocked(fx)]
    reasons = Counter(reason_kind(blocked(fx)) for fx, _ in fixtures if blocked(fx))
    reasons.update(f"refused: {Path(e.path).name} {e.field or ''}: {e.problem}"[:100] for e in refused)
    reasons.update(f"not at hand: {e.problem}"[:100] for e in missing)
    unread = _unread(source)
    reasons.update(why for _, why in unread)
    if args.details:
        for fx, _ in fixtures:
            where = next((k for k, v in fx.mounts.items() if v == "."), "its own folder")
            state = f"not runnable here: {blocked(fx)}" if blocked(fx) else \
                f"runnable{' in its own image' if fx.image else ''}, seen at {where}"
            print(f"{fx.task_id:32} {visible(state)}")
        for e in refused:
            print(f"{'(refused)':32} {visible(str(e))}")
        for e in missing:
            print(f"{'(not at hand)':32} {visible(str(e))}")
        for folder, why in unread:
            print(f"{'(not read)':32} {visible(f'{folder}: {why}')}")
    task_envs.show_failures(envs)
    print(f"{'tasks':>6}  why")
    print(f"{len(runnable):6}  runnable here")
    for why, n in reasons.most_common():
        print(f"{n:6}  {visible(why)}")
    print(f"import-tasks: {len(fixtures) + len(refused) + len(unread) + len(missing)} task folder(s) in {source} as "
          f"suite {name}: {len(runnable)} runnable here, {len(fixtures) - len(runnable)} not, {len(refused)} refused, "
          f"{len(unread)} not read{f', {len(missing)} not at hand' if missing else ''}"
          f"{'' if args.details else ' (--details names each)'}. {RUNNABLE}", file=sys.stderr)
    if args.write:
        doc = {"canary": CANARY, "suite": name,
               "tasks": [fx.model_dump(exclude_defaults=True) for fx, _ in fixtures]}
        Path(args.write).write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"import-tasks: wrote {args.write} (use it as --suite {args.write})", file=sys.stderr)
    unbuilt = sum(env.state == task_envs.NOT_BUILT for env in envs.values())
    if unbuilt:
        print(f"import-tasks: {unbuilt} task(s) run in their own image, not built yet: `kbench import-tasks {source} "
              "--build` builds them on the docker backend", file=sys.stderr)
    if refused:
        print(f"import-tasks: `--suite {source}` leaves the refused folders out, saying so, until they are fixed",
              file=sys.stderr)
    print(f"next: kbench --suite {source} validate; kbench --suite {source} run --model M --url URL ...",
          file=sys.stderr)
    return 0 if runnable else 1


def add_import_tasks_parser(sub) -> None:
    s = sub.add_parser("import-tasks", help="Harbor / Terminal-Bench task folders as a suite: what runs here",
                       description=f"Reads every task folder, a broken one refused with its file and field while "
                                   f"the others go on; prints how many are runnable and a table of why the others "
                                   f"are not. Exits 1 when none is runnable. {RUNNABLE}.")
    s.add_argument("dir", help="a task folder, a folder of them, or a Harbor registry file (registry.json)")
    s.add_argument("--dataset", metavar="NAME[@VERSION]", help="the registry's dataset to lay out (needed where it "
                                                               "holds several)")
    s.add_argument("--mirror", metavar="DIR", action="append",
                   help="a folder holding local clones (or bare git folders) of the repositories a registry's "
                        "tasks name, as OWNER+NAME, OWNER/NAME or NAME; nothing is fetched (repeatable)")
    s.add_argument("--into", metavar="DIR", help="where a registry's dataset is laid out as task folders (default "
                                                 "~/.cache/kbench/datasets/NAME@VERSION; emptied first)")
    s.add_argument("--write", metavar="F.json", help="also keep the suite as a JSON fixture file")
    s.add_argument("--details", action="store_true", help="each task, runnable or why not, and each refused folder")
    s.add_argument("--build", action="store_true",
                   help="build the image of each task whose environment needs its own (the docker backend; our "
                        "engine is started where none answers); a failed build names its step and last lines")
    s.set_defaults(func=cmd_import_tasks)
