"""Every finished attempt of a run, whichever way it was kept (a folder, or a line of the run's ledger), behind one
reader: its result with the latest regrading applied, its events, the grader's output and its final files.

Reports, the store's ingest, regrade and the evidence views read attempts through this, never the layout.
"""

from __future__ import annotations

import json
import shutil
import time
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from sandbox.agents.record import json_safe, read_events
from sandbox.engine.attempt_folders import (
    REGRADING,
    RESULT,
    apply_regrading,
    finished_results,
    read_result,
    write_json_atomic,
)
from sandbox.engine.attempt_ledger import LEDGER, RunLedger
from sandbox.engine.jsonlines import json_bytes
from sandbox.judge.files import NotReadable, read_agent_text

KEPT_BYTES = 8 << 20  # a record's tests.txt or kept file larger than this reads as missing, never whole into memory


@dataclass
class FolderRecord:
    """runs/RUNID/COND/TASK/sK/: result.json, events.jsonl, tests.txt, workdir/ (and regrading.json, requeued/)."""

    folder: Path

    @property
    def key(self) -> str:
        return "/".join(self.folder.parts[-3:])

    @property
    def where(self) -> str:
        return str(self.folder)

    @property
    def home(self) -> Path:
        """The folder the record is written in (its disk is the one a regrading fills)."""
        return self.folder

    def recorded(self) -> dict:
        """The result as the run wrote it (no regrading applied)."""
        return json.loads((self.folder / RESULT).read_text())

    def result(self) -> dict:
        return read_result(self.folder / RESULT)

    def events(self) -> list[dict]:
        return list(read_events(self.folder / "events.jsonl"))

    def events_bytes(self) -> int:
        p = self.folder / "events.jsonl"
        return p.stat().st_size if p.exists() else 0

    # tests.txt and workdir/ hold what the agent's processes could shape (its files, copied; the output of tests that
    # ran its code), and the reports that read them run with the harness's rights: read as the judge reads an
    # agent's file (rule 3 of sandbox/judge/), no link followed at any component, regular files only, capped.
    def tests(self) -> str:
        try:
            return read_agent_text(self.folder, "tests.txt", max_bytes=KEPT_BYTES)
        except NotReadable:
            return ""

    def file_text(self, rel: str, limit: int) -> str | None:
        try:
            text = read_agent_text(self.folder, PurePosixPath("workdir", rel), max_bytes=max(KEPT_BYTES, 4 * limit))
            return text[:limit]
        except NotReadable:
            return None

    def requeued(self) -> list[list[dict]]:
        """The events of each try given back on server trouble, oldest first."""
        tries = sorted((self.folder / "requeued").glob("attempt*.events.jsonl"), key=lambda p: int(p.name[7:-13] or 0))
        return [list(read_events(p)) for p in tries]

    def lay_files(self, work: Path) -> None:
        """The final files into a fresh folder, as the grader reads them."""
        shutil.copytree(self.folder / "workdir", work, dirs_exist_ok=True, symlinks=True)

    def add_regrading(self, regrading: dict, tests: str, fingerprint: str) -> None:
        out = self.folder / f"tests.regraded.{fingerprint[:12]}.txt"
        out.write_text(tests, encoding="utf-8")
        write_json_atomic(self.folder / REGRADING, {**regrading, "tests": out.name})


@dataclass
class LedgerRecord:
    """One attempt's lines in runs/RUNID/ledger.jsonl: its result, any requeued tries and regradings."""

    ledger: RunLedger
    entry: dict
    regradings: list[dict]
    requeue_entries: list[dict]

    @property
    def key(self) -> str:
        return self.entry["key"]

    @property
    def where(self) -> str:
        return f"{self.ledger.path} ({self.key})"

    @property
    def home(self) -> Path:
        return self.ledger.path.parent

    def recorded(self) -> dict:
        return dict(self.entry["result"])

    def result(self) -> dict:
        g = self.regradings[-1] if self.regradings else None
        return apply_regrading(self.recorded(), g["regrading"] if g else None)

    def events(self) -> list[dict]:
        return list(self.entry.get("events") or [])

    def events_bytes(self) -> int:
        return len(json_bytes(self.entry.get("events") or []))

    def tests(self) -> str:
        return self.regradings[-1].get("tests", "") if self.regradings else self.entry.get("tests") or ""

    def file_text(self, rel: str, limit: int) -> str | None:
        text = (self.entry.get("files") or {}).get(rel)
        return None if text is None else text[:limit]

    def requeued(self) -> list[list[dict]]:
        return [list(e.get("events") or []) for e in self.requeue_entries]

    def files(self) -> dict[str, str]:
        """The final files kept in the line: relative path -> text."""
        return dict(self.entry.get("files") or {})

    def lay_files(self, work: Path) -> None:
        for rel, text in (self.entry.get("files") or {}).items():
            target = Path(work) / rel
            if ".." in Path(rel).parts or Path(rel).is_absolute():
                continue  # the ledger is ours, but a line is data: it never writes outside the folder
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")

    def add_regrading(self, regrading: dict, tests: str, fingerprint: str) -> None:
        entry = json_safe({"type": "regrading", "key": self.key, "regrading": regrading, "tests": tests,
                           "at": time.strftime("%Y-%m-%dT%H:%M:%S")})  # as a reader will parse it back
        self.ledger.append(entry)
        self.regradings.append(entry)


AttemptRecord = FolderRecord | LedgerRecord
_BY_KEY: dict[Path, tuple[list, dict[str, LedgerRecord]]] = {}  # record_at's index: run -> (the entries read, by key)


def records_of(run_dir: Path) -> list[AttemptRecord]:
    """Every finished attempt of the run, ordered by condition, task and seed."""
    run_dir = Path(run_dir)
    out: list[AttemptRecord] = [FolderRecord(p.parent) for p in finished_results(run_dir)]
    if (run_dir / LEDGER).exists():
        ledger = RunLedger(run_dir)
        results: dict[str, dict] = {}  # the ledger's own entries: never changed here (RunLedger.entries)
        regradings: dict[str, list[dict]] = {}
        requeues: dict[str, list[dict]] = {}
        for e in ledger.entries():
            kind, key = e.get("type"), e["key"]
            if kind == "result" and isinstance(e.get("result"), dict):
                results[key] = e
                regradings[key] = []  # a regrading is of the result written before it
            elif kind == "regrading" and key in results and isinstance(e.get("regrading"), dict):
                regradings[key].append(e)
            elif kind == "requeue":
                requeues.setdefault(key, []).append(e)
        out += [LedgerRecord(ledger, e, regradings[k], requeues.get(k, [])) for k, e in results.items()]
    return sorted(out, key=lambda r: _order(r.key))


def record_at(where: str) -> AttemptRecord | None:
    """The record a `where` string names (a report's record_path), or None when it is gone."""
    if where.endswith(")") and " (" in where:
        ledger, _, key = where[:-1].rpartition(" (")
        run_dir = Path(ledger).parent
        entries = RunLedger(run_dir).entries()
        seen = _BY_KEY.get(run_dir)
        if seen is None or seen[0] is not entries:  # read once per change of the ledger, not once per attempt
            if len(_BY_KEY) >= 8:  # as many runs as RunLedger keeps read
                _BY_KEY.clear()
            seen = _BY_KEY[run_dir] = (entries, {r.key: r for r in records_of(run_dir) if isinstance(r, LedgerRecord)})
        return seen[1].get(key)
    return FolderRecord(Path(where)) if (Path(where) / RESULT).is_file() else None


def _order(key: str) -> tuple:
    cond, task, seed = key.split("/")
    return cond, task, int(seed[1:]) if seed[1:].isdigit() else 0


def done_keys(run_dir: Path) -> set[str]:
    """COND/TASK/sK of every finished attempt, without reading the records."""
    run_dir = Path(run_dir)
    keys = {"/".join(p.parent.parts[-3:]) for p in finished_results(run_dir)}
    return keys | RunLedger(run_dir).done_keys()
