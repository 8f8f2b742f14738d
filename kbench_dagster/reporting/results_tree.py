"""The results tree, klbench's way of gathering results from many sites: one `kbench collect` file per run at
`results/<site>/<hardware>/<run>.json`, where site and hardware are what the run's endpoint declared (its manifest;
`unknown` where it declared none). Every file is checked against schema/results.schema.json and against its place
(the folders must say the site and hardware its run declares), each bad file named with its field while the others
are still checked; the board is built from the tree by importing every file into a store (kbench import)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from kbench_dagster.reporting.export import validate_results
from sandbox.judge.parse import Refused, bounded_json

MAX_FILE_BYTES = 512 << 20  # as kbench import reads a results file
MAX_DEPTH = 32


def slug(text: str | None, most: int = 60) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", str(text or "")).strip("-.")[:most] or "unknown"


def place_of(run: dict) -> tuple[str, str]:
    """(site, hardware) folder names of a collected run, from its endpoint as the manifest records it."""
    endpoint = (run.get("manifest") or {}).get("endpoint") or {}
    # a site names the imported runs (SITE:RUNID), where kbench import allows 41 characters
    return slug(endpoint.get("site"), 41), slug(endpoint.get("hardware") or endpoint.get("hardware_class"))


def write_tree(doc: dict, root: Path) -> list[Path]:
    """Each run of a collect document as a file of its own in the tree at `root`; returns the files written."""
    written = []
    for run in doc["runs"]:
        one = {**doc, "runs": [run]}
        validate_results(one)
        site, hardware = place_of(run)
        path = Path(root) / site / hardware / f"{slug(run['run_id'])}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(one, indent=1) + "\n", encoding="utf-8")
        written.append(path)
    return written


def tree_files(root: Path) -> list[Path]:
    return sorted(p for p in Path(root).rglob("*.json") if p.is_file() and not p.is_symlink())


def check_file(path: Path, root: Path) -> str | None:
    """What is wrong with one file of the tree (None: nothing): where it sits, what it holds."""
    parts = path.relative_to(root).parts
    if len(parts) != 3:
        return f"{path}: a results file sits at <site>/<hardware>/<run>.json, not at {'/'.join(parts)}"
    if path.stat().st_size > MAX_FILE_BYTES:
        return f"{path}: larger than {MAX_FILE_BYTES >> 20} MiB"
    try:
        doc = bounded_json(path.read_text(encoding="utf-8", errors="replace"), max_depth=MAX_DEPTH,
                           max_bytes=MAX_FILE_BYTES)
        if not isinstance(doc, dict):
            raise ValueError("not a JSON object")
        validate_results(doc)
    except (Refused, ValueError) as exc:
        return f"{path}: {exc}"
    for i, run in enumerate(doc["runs"]):
        site, hardware = place_of(run)
        if (site, hardware) != parts[:2]:
            return (f"{path}: runs[{i}] ({run['run_id']}) declares site {site!r} and hardware {hardware!r}: it "
                    f"belongs under {site}/{hardware}/")
    return None


def check_tree(root: Path) -> tuple[int, list[str]]:
    """(files checked, the problems found), every file checked whatever the others hold."""
    files = tree_files(root)
    return len(files), [p for p in (check_file(f, Path(root)) for f in files) if p]


def import_tree(store, root: Path) -> tuple[list[str], list[str]]:
    """Every sound file of the tree into `store`, each as the site its folder names: (imported files, problems)."""
    from kbench_dagster.commands.import_results import import_path

    done, problems = [], []
    for f in tree_files(root):
        problem = check_file(f, Path(root))
        if problem is None:
            try:
                import_path(store, f, site=f.relative_to(root).parts[0])
            except ValueError as exc:
                problem = str(exc)
        if problem:
            problems.append(problem)
        else:
            done.append(str(f))
    return done, problems
