"""`kbench discover --source DIR [--difficulty hard] [--limit 5] --output candidates.jsonl`: candidate tasks from a
local copy of another benchmark's task folders (Harbor's task.toml, Terminal-Bench's task.yaml), offline.

The output is provisional: each record says `"trusted": false` and where it came from, and nothing in kbench runs
such a record (the suite loaders take no .jsonl, and `kbench swe` wants a trusted dataset of its own shape). A
candidate becomes a task only when someone converts it into a fixture or a task folder and validates it.
"""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path

import yaml

SPECS = ("task.toml", "task.yaml")
DIFFICULTIES = ("easy", "medium", "hard")


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


def discover(source: Path, difficulty: str | None, limit: int) -> tuple[list[dict], int]:
    """(candidates, folders seen): task folders under `source` (two levels at most) of that difficulty."""
    folders = sorted({p.parent for name in SPECS for p in source.glob(f"*/{name}")}
                     | {p.parent for name in SPECS for p in source.glob(f"*/*/{name}")})
    out = []
    for folder in folders:
        doc = _spec(folder) or {}
        level = _difficulty(doc)
        if "_unreadable" in doc or (difficulty and level != difficulty):
            continue
        out.append({"id": folder.name, "source_path": str(folder.resolve()), "difficulty": level,
                    "instruction": _instruction(folder, doc), "has_tests": (folder / "tests").is_dir(),
                    "has_solution": any((folder / n).exists() for n in ("solution", "solution.sh")),
                    "needs_image": (folder / "environment" / "Dockerfile").is_file()
                    or (folder / "Dockerfile").is_file(), "trusted": False})
        if len(out) >= limit:
            break
    return out, len(folders)


def cmd_discover(args) -> int:
    source = Path(args.source)
    if not source.is_dir():
        raise ValueError(f"--source {source}: not a folder (discover reads a local copy; it fetches nothing)")
    if not args.output.endswith(".jsonl"):
        raise ValueError("--output must name a .jsonl file: the candidates are provisional records, one a line")
    found, seen = discover(source, args.difficulty, args.limit)
    Path(args.output).write_text("".join(json.dumps(c) + "\n" for c in found), encoding="utf-8")
    print(f"discover: {len(found)} candidate(s) of {seen} task folder(s) in {source} written to {args.output}, each "
          "marked trusted: false; none runs until converted into a task and validated", file=sys.stderr)
    return 0


def add_discover_parser(sub) -> None:
    s = sub.add_parser("discover", help="candidate tasks from a local copy of another benchmark (offline)")
    s.add_argument("--source", required=True, metavar="DIR")
    s.add_argument("--difficulty", choices=DIFFICULTIES, default="hard", help="default hard")
    s.add_argument("--limit", type=int, default=5)
    s.add_argument("--output", required=True, metavar="candidates.jsonl")
    s.set_defaults(func=cmd_discover)
