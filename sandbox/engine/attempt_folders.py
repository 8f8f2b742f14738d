"""The run records on disk: runs/RUNID/COND/TASK/sK/ (events.jsonl, tests.txt, result.json, workdir/) and the
manifest."""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import stat
import subprocess
from pathlib import Path

from sandbox.agents.record import EventLog, json_safe
from sandbox.isolation.bwrap import sandbox_python
from sandbox.isolation.trees import Entry, Walk, remove_tree
from task_defs.vocabulary import PENDING, SCORED

MAX_KEPT_FILE = 10 * 1024 * 1024
# A record keeps at most this much of a work folder; an agent can shape its folder to make the copy endless.
MAX_KEPT_ENTRIES = 5000
MAX_KEPT_DEPTH = 40
MAX_KEPT_PATH = 1024  # characters of a path below the work folder
MAX_KEPT_TOTAL = 256 * 1024 * 1024
MAX_LEFT_OUT_LISTED = 200
SKIPPED_NAMES = {"__pycache__", ".pytest_cache", ".mypy_cache", ".cache", "node_modules", ".npm"}
RESULT = "result.json"
# Written beside result.json when the attempt's final files are graded again by a newer hidden test; readers
# take its verdict over the first one (read_result), so reports, the store and the board agree.
REGRADING = "regrading.json"
RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9@._-]{0,159}")
CLAIM = re.compile(r"\b(works?|working|pass(es|ed|ing)?|correct(ly)?|succe(ss|eded|ssful|ssfully)|verified)\b", re.I)


def check_run_id(value: str) -> str:
    """A run id names a folder under the runs root: nothing that could climb out of it or look like an option."""
    if not RUN_ID.fullmatch(value):
        raise ValueError(f"RUNID {value!r}: use letters, digits, '@', '.', '_' and '-' only (at most 160), "
                         "starting with a letter or digit")
    return value


def read_result(path: Path) -> dict:
    """An attempt's result.json with its latest regrading applied (see apply_regrading)."""
    again = Path(path).with_name(REGRADING)
    return apply_regrading(json.loads(Path(path).read_text()),
                           json.loads(again.read_text()) if again.exists() else None)


def apply_regrading(r: dict, g: dict | None) -> dict:
    """A result with a later verdict applied (outcome, detail, test duration, fingerprint and the kind's own
    fields); `regraded` and `graded_at` say which verdict it is."""
    r.setdefault("regraded", False)
    r.setdefault("graded_at", r.get("finished_at"))
    if g is not None:
        r.update({k: v for k, v in g.items() if k != "tests"}, regraded=r["outcome"] != PENDING,
                 first_outcome=r["outcome"])
        r["false_claim"] = is_false_claim(r.get("final_message", ""), r["outcome"])
    return r


class FolderBox:
    """One try of one attempt, kept as a folder: written into COND/TASK/sK.partial and renamed into place when its
    result.json is written, so a killed harness never leaves a record that looks finished. A try given back on
    server trouble keeps its events in sK.requeued/ (numbered across reruns), moved into the record at the end."""

    def __init__(self, dest: Path):
        self.dest = Path(dest)
        self.partial = self.dest.with_name(self.dest.name + ".partial")
        self.tests_path = self.partial / "tests.txt"
        self.events = EventLog(self.partial / "events.jsonl")
        self._kept = self.dest.with_name(self.dest.name + ".requeued")

    def open(self) -> None:
        remove_tree(self.partial, ignore_errors=True)
        self.partial.mkdir(parents=True)

    def ensure(self) -> None:
        """The folder, where a harness error came before open() made it."""
        self.partial.mkdir(parents=True, exist_ok=True)

    def write_tests(self, text: str) -> None:
        self.tests_path.write_text(text)

    def keep_files(self, workdir: Path) -> list[str]:
        return copy_final_files(workdir, self.partial / "workdir")

    def requeues(self) -> int:
        return len(list(self._kept.glob("attempt*.events.jsonl")))

    def requeue(self) -> None:
        n = self.requeues() + 1
        self._kept.mkdir(exist_ok=True)
        if self.events.path.exists():
            self.events.path.rename(self._kept / f"attempt{n}.events.jsonl")
        remove_tree(self.partial, ignore_errors=True)

    def finish(self, result: dict) -> None:
        if self._kept.exists():
            self._kept.rename(self.partial / "requeued")
        write_json_atomic(self.partial / RESULT, result)
        remove_tree(self.dest, ignore_errors=True)  # only ever a leftover without result.json
        self.partial.rename(self.dest)


def attempt_dir(runs_root: Path, run_id: str, cond: str, task: str, seed: int) -> Path:
    return Path(runs_root) / run_id / cond / task / f"s{seed}"


def is_false_claim(final_message: str, outcome: str) -> bool:
    """The agent's last message says the result works, passes or is correct, but the hidden test failed."""
    return outcome in SCORED and outcome != "pass" and bool(CLAIM.search(final_message or ""))


def copy_final_files(workdir: Path, dest: Path) -> list[str]:
    """Copy what the agent left into the record: no caches, no file over 10 MB, links kept as links (never
    followed), and no more than the caps below of a tree the agent may have shaped against us. Returns what was
    left out, with a "listing truncated" line when a cap stopped the copy."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    left_out: list[str] = []
    total = 0

    def skip(e: Entry) -> bool:
        return e.name in SKIPPED_NAMES or len(e.rel) > MAX_KEPT_PATH

    walk = Walk(Path(workdir), max_entries=MAX_KEPT_ENTRIES, max_depth=MAX_KEPT_DEPTH, skip=skip)
    for e in walk:
        target = dest / e.rel
        if len(e.rel) > MAX_KEPT_PATH:
            left_out.append(f"{e.rel[:200]}... (a path over {MAX_KEPT_PATH} characters)")
        elif e.kind == "dir":
            if e.name in SKIPPED_NAMES:
                left_out.append(e.rel + "/")
            else:
                target.mkdir()
        elif e.kind == "link":
            os.symlink(os.readlink(e.name, dir_fd=e.dir_fd), target)
        elif e.kind != "file" or e.name.endswith(".pyc") or e.st.st_size > MAX_KEPT_FILE:
            left_out.append(e.rel)  # fifos, sockets, devices, bytecode, big files
        elif total + e.st.st_size > MAX_KEPT_TOTAL:
            left_out.append(f"{e.rel} (the record already holds {MAX_KEPT_TOTAL // 2**20} MB of final files)")
        elif _copy_file(e, target):
            total += e.st.st_size
        else:
            left_out.append(e.rel)
    if len(left_out) > MAX_LEFT_OUT_LISTED:
        left_out[MAX_LEFT_OUT_LISTED:] = [f"... and {len(left_out) - MAX_LEFT_OUT_LISTED} more left out"]
    if walk.truncated:  # first, so that a reader who shows only the head of the list still sees it
        left_out.insert(0, f"(listing truncated: {walk.truncated}; the rest of the folder was not kept)")
    return left_out


def _copy_file(e: Entry, target: Path) -> bool:
    """Copy one regular file, opened without following a link and without blocking (something swapped in for it
    after the listing, a FIFO say, is not read); its mode bits and times come along. False: it was not copied."""
    try:
        src = os.open(e.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=e.dir_fd)
    except OSError:
        return False
    try:
        st = os.fstat(src)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_KEPT_FILE:
            return False
        out = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            left = st.st_size
            while left > 0 and (chunk := os.read(src, min(left, 1 << 20))):
                os.write(out, chunk)
                left -= len(chunk)
            os.fchmod(out, stat.S_IMODE(st.st_mode) & 0o777)
            os.utime(out, ns=(st.st_atime_ns, st.st_mtime_ns))
        finally:
            os.close(out)
        return True
    finally:
        os.close(src)


def write_json_atomic(path: Path, data: dict) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(json_safe(data), indent=2, ensure_ascii=False, default=str), encoding="utf-8")
    os.replace(tmp, path)


def _version(cmd: list[str]) -> str | None:
    try:
        cp = subprocess.run(cmd, capture_output=True, text=True, timeout=10)
        return (cp.stdout or cp.stderr).strip().splitlines()[0] if cp.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired, IndexError):
        return None


def gpus() -> list[str]:
    if not shutil.which("nvidia-smi"):
        return []
    out = _version(["nvidia-smi", "--query-gpu=name,memory.total,driver_version", "--format=csv,noheader"])
    return [out] if out else []


def environment_versions(pi: str | None) -> dict:
    """Versions for the manifest; deliberately no host name, user name or key."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        kbench = version("kbench-dagster")
    except PackageNotFoundError:
        kbench = "unknown"
    return {
        "kbench": kbench,
        "pi": pi,
        "node": _version(["node", "--version"]),
        "python_harness": platform.python_version(),
        "python_sandbox": (_version([sandbox_python(), "--version"]) or "").removeprefix("Python ") or None,
        "os": f"{platform.system()} {platform.release()} {platform.machine()}",
        "os_release": _os_release(),
    }


def _os_release() -> str | None:
    try:
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                return line.split("=", 1)[1].strip('"')
    except OSError:
        pass
    return None


_SEED_DIR = re.compile(r"s\d+")


def finished_results(run_dir: Path) -> list[Path]:
    """The result.json of every finished attempt (RUN/CONDITION/TASK/sN). A `.partial` folder that a kill left
    behind (its result.json written, the rename not yet done) is not one: the rerun redoes that attempt."""
    return sorted(p for p in Path(run_dir).glob("*/*/s*/result.json") if _SEED_DIR.fullmatch(p.parent.name))
