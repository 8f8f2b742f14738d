"""`kbench import FILE|DIR`: another machine's results into this store, with their endpoint and hardware.

Two sources. A `kbench collect` file carries, beside its numbers, the rows its machine stored (attempts, gradings,
requests) and its runs' endpoints: it is validated against schema/results.schema.json before anything is written.
A folder of run records (a runs folder, or one run's folder) is read the way `kbench run` stores its own.

Imported runs keep their endpoint, hardware and sampling, so the board shows them as the rows they were; their run
ids are prefixed with the site they came from (SITE:RUNID), so a run of the same name on this machine is never
mixed with them. Everything of one import is written in one transaction: an invalid file, or a failure half-way,
leaves the store as it was. The rows of a run replace what an earlier import of it left: importing the same file
twice changes nothing. Several files import one by one: a bad one is named and refused, and the others still land.

A results file comes from another machine, so it is judged as untrusted (rule 7 of sandbox/judge): read with a size
and nesting cap, every row held to the schema's fields and bounds (no unknown field, every number finite and below
its ceiling), and nothing in it is a path this machine reads. record_path, where the records sat on the machine that
made them, is refused in a file and dropped from a folder's rows: the board finds records only in its own runs root.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from kbench_dagster.ingest import cell_of, cells_of, collect_rows
from kbench_dagster.parquet_store import open_store
from kbench_dagster.reporting.export import LOCAL_ONLY, validate_results, validate_rows
from kbench_dagster.store import DEFAULT_DB, ResultsStore
from kbench_dagster.terminal import visible
from sandbox.judge.parse import Refused, bounded_json

MAX_FILE_BYTES = 512 << 20  # a results file of some hundred thousand attempts; more is not one
MAX_DEPTH = 32  # a results file nests some eight levels (a manifest's settings the deepest)

IMPORTED = ("attempts", "gradings", "requests")  # agent tasks' rows and their speed; other kinds stay per machine
_SITE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,40}$")


@dataclass
class ImportSummary:
    site: str
    runs: list[str] = field(default_factory=list)
    rows: dict[str, int] = field(default_factory=dict)


def check_site(site: str) -> str:
    if not _SITE.fullmatch(site):
        raise ValueError(f"--site {site!r}: use letters, digits, '.', '_' and '-' (at most 41)")
    return site


def import_path(store: ResultsStore, path: Path, site: str | None = None) -> ImportSummary:
    """Import a collect file or a folder of run records; ValueError (naming the file and field) when it is invalid."""
    path = Path(path)
    if path.is_dir():
        runs = _runs_of_folder(path)
        default_site = path.resolve().name
    elif path.is_file():
        runs = _runs_of_file(path)
        default_site = path.stem
    else:
        raise ValueError(f"{path}: no such file or folder")
    chosen = check_site(site or _site_of(runs) or re.sub(r"[^A-Za-z0-9._-]+", "-", default_site)[:41] or "imported")
    partitions: dict[str, dict[str, list[dict]]] = {}
    manifests = []
    for run in runs:
        run_id = f"{chosen}:{run['run_id']}"
        for (condition, seed), tables in _by_cell(run["rows"]).items():
            rows = {t: [{**r, "run_id": run_id} for r in tables.get(t, [])] for t in IMPORTED}
            partitions[f"import/{run_id}/{cell_of(condition, seed)}"] = rows
        if run.get("manifest"):
            manifests.append({**run["manifest"], "run_id": run_id})
    try:
        counts = store.replace_partitions(partitions, manifests)
    except duckdb.Error as exc:  # a value the schema allows but a column cannot hold (a malformed timestamp)
        raise ValueError(f"{path}: a row could not be stored ({str(exc).splitlines()[0]}); nothing was imported") \
            from None
    return ImportSummary(chosen, [f"{chosen}:{r['run_id']}" for r in runs], counts)


def _site_of(runs: list[dict]) -> str | None:
    sites = {((r.get("manifest") or {}).get("endpoint") or {}).get("site") for r in runs} - {None, "unknown"}
    return re.sub(r"[^A-Za-z0-9._-]+", "-", sites.pop())[:41] if len(sites) == 1 else None


def _by_cell(rows: dict[str, list[dict]]) -> dict[tuple[str, int], dict[str, list[dict]]]:
    out: dict[tuple[str, int], dict[str, list[dict]]] = {}
    for table, items in rows.items():
        for r in items:
            out.setdefault((r["condition"], r["seed"]), {}).setdefault(table, []).append(r)
    return out


def _runs_of_file(path: Path) -> list[dict]:
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise ValueError(f"{path}: cannot be read ({exc.strerror})") from None
    try:
        doc = bounded_json(data.decode("utf-8"), max_depth=MAX_DEPTH, max_bytes=MAX_FILE_BYTES)
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not a JSON file ({exc})") from None
    except Refused as exc:
        raise ValueError(f"{path}: not a JSON file we read: {exc}") from None
    try:
        validate_results(doc)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
    runs = []
    for i, run in enumerate(doc["runs"]):
        if "rows" not in run:
            raise ValueError(f"{path}: runs/{i}/rows: missing; the file was made by a kbench collect without the "
                             "stored rows (an older version): collect the run again, or import its run folder")
        runs.append({"run_id": run["run_id"], "rows": run["rows"], "manifest": run.get("manifest")})
    return runs


def _runs_of_folder(path: Path) -> list[dict]:
    """One run's folder (it holds manifest.json), or a runs folder of them."""
    dirs = [path] if (path / "manifest.json").is_file() else sorted(
        d for d in path.iterdir() if d.is_dir() and (d / "manifest.json").is_file())
    if not dirs:
        raise ValueError(f"{path}: no run records here (a run's folder holds manifest.json)")
    runs = []
    for d in dirs:
        try:
            manifest = json.loads((d / "manifest.json").read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise ValueError(f"{d / 'manifest.json'}: not a JSON file ({exc})") from None
        rows = collect_rows(d)
        if any(cells_of(d)) and not rows["attempts"]:
            continue  # kernels, text jobs, breakdown: their tables stay with their machine
        kept = {t: [{k: v for k, v in r.items() if k not in LOCAL_ONLY} for r in rows[t]] for t in IMPORTED}
        validate_rows(json.loads(json.dumps(kept, default=str)), str(d))  # as a collect file would carry them
        runs.append({"run_id": d.name, "manifest": manifest, "rows": kept})
    return runs


def cmd_import(args) -> int:
    """Each path on its own: a bad one is named on stderr and the others still import; 2 when any failed."""
    failed = 0
    for one in args.paths:
        try:
            summary = import_path(open_store(args.db), Path(one), args.site)
        except ValueError as exc:
            print(f"error: {visible(exc)}", file=sys.stderr)  # a file from elsewhere may hold any text
            failed += 1
            continue
        counts = ", ".join(f"{n} {t}" for t, n in sorted(summary.rows.items())) or "no rows"
        print(f"imported from {one} as site {summary.site}: {len(summary.runs)} run(s) "
              f"({', '.join(summary.runs)}); {counts} in {args.db}. Importing it again replaces these rows.")
    if failed:
        print(f"{failed} of {len(args.paths)} refused; nothing of those was written", file=sys.stderr)
    return 2 if failed else 0


def add_import_parser(sub) -> None:
    s = sub.add_parser("import", help="another machine's results: `kbench collect` files or run folders")
    s.add_argument("paths", metavar="FILE|DIR", nargs="+")
    s.add_argument("--site", help="where the results come from; their run ids become SITE:RUNID (default: the "
                                  "endpoint's declared site, else the file's or folder's name)")
    s.add_argument("--db", default=str(DEFAULT_DB))
    s.set_defaults(func=cmd_import)
