"""`kbench discover --source NAME|DIR [--mirror DIR] [--difficulty hard] [--limit 5] --output candidates.jsonl`:
candidate tasks from another benchmark's task folders (Harbor's task.toml, Terminal-Bench's task.yaml), offline.

A source is a local copy (DIR), or a name on the allowlist (`SOURCES`: a public repository and the folder its tasks
are in), read from a local mirror of that repository (--mirror: a clone or bare git folder, as for registry.json),
never fetched. The output is provisional: each record says `"trusted": false`, where it came from (the source's URL
at the mirror's commit, or the local path) and carries the review fields a reviewer starts from (a verification of
type answer_contains that nothing runs, an empty workspace). Nothing in kbench runs such a record (the suite
loaders take no .jsonl, and `kbench swe` wants a trusted dataset of its own shape): a candidate becomes a task only
when someone converts it into a fixture or a task folder and validates it.
"""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path

import yaml

SPECS = ("task.toml", "task.yaml")
DIFFICULTIES = ("easy", "medium", "hard")
# name -> (repository, the folder of its tasks): the sources discover reads by name, from a local mirror only
SOURCES = {
    "terminal-bench": ("https://github.com/laude-institute/terminal-bench.git", "tasks"),
    "terminal-bench-2": ("https://github.com/laude-institute/terminal-bench-2.git", "."),
    "harbor-cookbook": ("https://github.com/harbor-framework/harbor-cookbook.git", "harbor_cookbook/recipes"),
    "terminal-bench-env": ("https://github.com/zjysteven/terminal-bench-env.git", "environments_harbor"),
}


def _spec(folder: Path) -> dict | None:
    for name in SPECS:
        path = folder / name
        if path.is_file():
            try:
                text = path.read_text(encoding="utf-8")
                doc = tomllib.loads(text) if name.endswith(".toml") else yaml.safe_load(text)
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, yaml.YAMLError):
                return {"_unreadable": name}
            return doc if isinstance(doc, dict) else {"_unreadable": name}
    return None


def _difficulty(doc: dict) -> str | None:
    for holder in (doc, doc.get("metadata") or {}):
        value = holder.get("difficulty") if isinstance(holder, dict) else None
        if isinstance(value, str) and value.lower() in DIFFICULTIES:
            return value.lower()
    return None


def _instruction(folder: Path, doc: dict) -> str:
    text = doc.get("instruction") or doc.get("descriptions") or ""
    if isinstance(text, list) and text and isinstance(text[0], dict):  # Terminal-Bench: a list of descriptions
        text = text[0].get("description") or ""
    if not text and (folder / "instruction.md").is_file():
        text = (folder / "instruction.md").read_text(encoding="utf-8", errors="replace")
    return " ".join(str(text).split())[:300]


def discover(source: Path, difficulty: str | None, limit: int, origin=None) -> tuple[list[dict], int]:
    """(candidates, folders seen): task folders under `source` (two levels at most) of that difficulty. `origin`
    (name, repository URL, commit, folder): the allowlisted source `source` was laid out from."""
    folders = sorted({p.parent for name in SPECS for p in source.glob(f"*/{name}")}
                     | {p.parent for name in SPECS for p in source.glob(f"*/*/{name}")})
    out = []
    for folder in folders:
        doc = _spec(folder) or {}
        level = _difficulty(doc)
        if "_unreadable" in doc or (difficulty and level != difficulty):
            continue
        record = {"id": folder.name, "source_path": str(folder.resolve()), "difficulty": level,
                  "instruction": _instruction(folder, doc), "has_tests": (folder / "tests").is_dir(),
                  "has_solution": any((folder / n).exists() for n in ("solution", "solution.sh")),
                  "needs_image": (folder / "environment" / "Dockerfile").is_file()
                  or (folder / "Dockerfile").is_file(), "trusted": False}
        if origin:
            name, url, commit, tasks = origin
            rel = folder.relative_to(source).as_posix()
            where = rel if tasks == "." else f"{tasks}/{rel}"
            record.update(source=name, source_url=f"{url.removesuffix('.git')}/tree/{commit}/{where}",
                          source_path=where)
        # what a reviewer starts from (the seed's review fields): nothing runs them
        record.update(verification={"type": "answer_contains", "expected_substrings": [
            origin[0] if origin else source.name, level or "unrated"]}, workspace={"files": {}})
        out.append(record)
        if len(out) >= limit:
            break
    return out, len(folders)


def _laid(name: str, mirrors: list[Path], into: Path) -> tuple[Path, tuple]:
    """An allowlisted source's task folder, laid out from its local mirror: the folder and where it came from."""
    from task_defs.importers.git_mirror import commit_of, find_mirror, lay_from_mirror

    url, tasks = SOURCES[name]
    found = find_mirror(url, tasks, mirrors)
    commit = commit_of(found, None) if found else None
    why = lay_from_mirror(url, commit, tasks, mirrors, into / "tasks")
    if why:
        raise ValueError(f"--source {name}: {why}")
    return into / "tasks", (name, url, commit or "HEAD", tasks)


def cmd_discover(args) -> int:
    import tempfile

    if not args.output.endswith(".jsonl"):
        raise ValueError("--output must name a .jsonl file: the candidates are provisional records, one a line")
    with tempfile.TemporaryDirectory(prefix="kbench-discover-") as tmp:
        if args.source in SOURCES:
            source, origin = _laid(args.source, [Path(m) for m in args.mirror or []], Path(tmp))
        else:
            source, origin = Path(args.source), None
            if not source.is_dir():
                raise ValueError(f"--source {source}: neither a folder nor an allowlisted source ("
                                 f"{', '.join(SOURCES)}); discover reads a local copy and fetches nothing")
        found, seen = discover(source, args.difficulty, args.limit, origin)
    Path(args.output).write_text("".join(json.dumps(c) + "\n" for c in found), encoding="utf-8")
    print(f"discover: {len(found)} candidate(s) of {seen} task folder(s) in {args.source} written to {args.output}, "
          "each marked trusted: false; none runs until converted into a task and validated", file=sys.stderr)
    return 0


def add_discover_parser(sub) -> None:
    s = sub.add_parser("discover", help="candidate tasks from a local copy of another benchmark (offline)")
    s.add_argument("--source", required=True, metavar="NAME|DIR",
                   help=f"a local copy of task folders, or an allowlisted source ({', '.join(SOURCES)}) read from "
                        "--mirror")
    s.add_argument("--mirror", metavar="DIR", action="append",
                   help="a folder holding local clones (or bare git folders) of the allowlisted sources' repositories, "
                        "as OWNER+NAME, OWNER/NAME or NAME; nothing is fetched (repeatable)")
    s.add_argument("--difficulty", choices=DIFFICULTIES, default="hard", help="default hard")
    s.add_argument("--limit", type=int, default=5)
    s.add_argument("--output", required=True, metavar="candidates.jsonl")
    s.set_defaults(func=cmd_discover)
