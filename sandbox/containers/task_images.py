"""A task's own environment, built from its Dockerfile on the docker backend, the way Harbor builds it.

The recipe is read without an engine (`recipe`): its name is a hash of the build context and of the Dockerfile as
it will be built, so the same folder always names the same image, and a changed file a new one. No registry is
reachable from these machines, so a FROM image the engine lacks is replaced by a local stand-in where one is known
(`STAND_INS`: our own Debian base for debian, ubuntu and buildpack-deps, and for Terminal-Bench's own ubuntu-*
bases; that base with pip for python), and a
build's RUN steps use the host's network (the classic builder: our engine has no bridge), with the machine's own
certificate authorities, so they reach what the machine reaches (here Debian's mirror and PyPI). A build that fails
is remembered with its failing step and the last lines of its output, so every attempt of the task is skipped with
that reason rather than retried.

What the build leaves at the task's work folder path (WORKDIR) is copied out once (`workdir_snapshot`) and laid
into each attempt's work folder, which the sessions see at that path as always: the agent's and the verifier's
sessions run in containers of this image, its system read-only.
"""

from __future__ import annotations

import fnmatch
import functools
import hashlib
import io
import json
import os
import re
import shutil
import tarfile
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from sandbox.containers import image as base_image
from sandbox.isolation.trees import publish

REPOSITORY = "kbench-env"
DOCKERFILE = ".kbench.Dockerfile"  # the Dockerfile as built (FROM replaced), written beside the context's own
TAIL_LINES = 20
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")  # the builder colours a step's stderr
UNPRINTABLE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
CACHE_ENV = "KBENCH_ENV_IMAGES"  # where failures and WORKDIR snapshots are kept
# FROM images the engine lacks, and what stands in for them: the Python version is Debian's (3.11), whatever the
# tag asks, and Ubuntu's package names are Debian's for nearly everything a task installs.
STAND_INS = (("debian", "base"), ("ubuntu", "base"), ("buildpack-deps", "base"), ("python", "python"))
# Terminal-Bench's own base images (ubuntu-24-04, python-3-13, ...): named by the system they are built on
TBENCH_BASES = "ghcr.io/laude-institute/t-bench/"
PYTHON_STAND_IN = ("python3-pip", "python3-venv", "python-is-python3")
LOCAL_CAS = "/usr/local/share/ca-certificates"  # the machine's own certificate authorities, given to the stand-ins


class BuildFailed(RuntimeError):
    """The image could not be built: `step` is the Dockerfile step that failed, `tail` its last output lines."""

    def __init__(self, step: str, tail: str):
        super().__init__(f"{step}: {last_line(tail)}")
        self.step, self.tail = step, tail


@dataclass(frozen=True)
class Recipe:
    context: Path
    name: str  # kbench-env/<task>:<hash>
    dockerfile: str  # the text built
    stand_ins: tuple[str, ...]  # "ubuntu:24.04 -> kbench-base:..." for each FROM replaced
    # the build's steps reach the host's network only where one of them fetches (the host's own services listen
    # there too): a build that fetches nothing gets none
    network: bool = False


def cache_root() -> Path:
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "kbench" / "env-images")


def _stand_in(ref: str) -> str | None:
    repo = ref.split("@")[0].rsplit(":", 1)[0] if ":" in ref.split("/")[-1] else ref.split("@")[0]
    repo = repo.removeprefix("docker.io/").removeprefix("library/")
    if repo.startswith(TBENCH_BASES):
        repo = repo.removeprefix(TBENCH_BASES).split("-")[0]
    for name, kind in STAND_INS:
        if repo == name:
            return stand_in_name(kind)
    return None


def _machine_cas() -> list[Path]:
    return sorted(p for p in Path(LOCAL_CAS).glob("*.crt") if p.is_file()) if Path(LOCAL_CAS).is_dir() else []


@functools.cache
def _stand_in_tag() -> str:
    h = hashlib.sha256(base_image.image_name().encode() + " ".join(PYTHON_STAND_IN).encode())
    for ca in _machine_cas():
        h.update(ca.name.encode() + ca.read_bytes())
    return h.hexdigest()[:12]


def stand_in_name(kind: str) -> str:
    """kind 'base' (our Debian base with the machine's certificate authorities) or 'python' (that, with pip)."""
    return f"{REPOSITORY}-{kind}:{_stand_in_tag()}"


def _rewrite(text: str) -> tuple[str, tuple[str, ...]]:
    """The Dockerfile with each FROM of a known base replaced by its local stand-in."""
    out, replaced = [], []
    for line in text.splitlines():
        m = re.match(r"^(\s*FROM\s+)((?:--\S+\s+)*)(\S+)(.*)$", line, re.IGNORECASE)
        local = _stand_in(m.group(3)) if m else None
        if m and local:
            replaced.append(f"{m.group(3)} -> {local}")
            line = f"{m.group(1)}{m.group(2)}{local}{m.group(4)}"
        out.append(line)
    return "\n".join(out) + "\n", tuple(replaced)


def _ignored(context: Path) -> list[str]:
    path = context / ".dockerignore"
    if not path.is_file():
        return []
    return [ln.strip() for ln in path.read_text(encoding="utf-8", errors="replace").splitlines()
            if ln.strip() and not ln.lstrip().startswith("#")]


def _context_files(context: Path) -> list[Path]:
    ignore = _ignored(context)
    files = []
    for p in sorted(context.rglob("*")):
        rel = p.relative_to(context).as_posix()
        if p.is_file() and rel != DOCKERFILE and not any(fnmatch.fnmatch(rel, pat.rstrip("/")) for pat in ignore):
            files.append(p)
    return files


def recipe(context: Path, task: str, env: dict[str, str] | None = None) -> Recipe:
    """What building `context` (a folder with a Dockerfile) makes, and its name; no engine needed. `env`: variables
    the image sets besides its Dockerfile's (Harbor's [environment.env]), last, so they win."""
    context = Path(context)
    text, replaced = _rewrite((context / "Dockerfile").read_text(encoding="utf-8"))
    text += "".join(f"ENV {k}={json.dumps(v)}\n" for k, v in (env or {}).items())
    h = hashlib.sha256(text.encode())
    for p in _context_files(context):
        h.update(p.relative_to(context).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
    slug = re.sub(r"[^a-z0-9._-]+", "-", task.lower()).strip("-._") or "task"
    return Recipe(context=context, name=f"{REPOSITORY}/{slug}:{h.hexdigest()[:16]}", dockerfile=text,
                  stand_ins=replaced, network=_fetches(context / "Dockerfile"))


def _fetches(dockerfile: Path) -> bool:
    from task_defs.importers.dockerfile import fetches, instructions  # the importer's own reading of a step

    return any((word == "RUN" and fetches(args)) or (word == "ADD" and "://" in args)
               for _n, word, args in instructions(dockerfile))


def _record_dir(name: str) -> Path:
    return cache_root() / name.replace("/", "_").replace(":", "_")


def last_line(tail: str) -> str:
    """The last line the failing step printed itself (the builder's own summary of the exit code comes after)."""
    lines = [ln.strip() for ln in tail.splitlines() if ln.strip()]
    own = [ln for ln in lines if not ln.startswith("The command '")]
    return (own or lines or ["no output"])[-1]


def failure(name: str) -> dict | None:
    """The remembered failure of this image's build: {"step", "tail"}, or None."""
    try:
        return json.loads((_record_dir(name) / "failed.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def present(client, name: str) -> bool:
    import docker

    try:
        client.images.get(name)
        return True
    except docker.errors.ImageNotFound:
        return False


def ensure_stand_ins(client, log: Callable[[str], None] = print) -> None:
    """The local stand-ins, built once: our base with the machine's own certificate authorities (a build reaches
    what the machine reaches, a TLS-inspecting egress included), and that with pip and venv (Debian's), pip allowed
    to install into the system Python as in python:* images."""
    base, python = stand_in_name("base"), stand_in_name("python")
    if present(client, base) and present(client, python):
        return
    base_image.build(client, log=log)
    log(f"building the local stand-ins for debian, ubuntu and python images: {base}, {python}")
    files = {f"cas/{ca.name}": ca.read_bytes() for ca in _machine_cas()}
    files["Dockerfile"] = (f"FROM {base_image.image_name()}\n" + ("COPY cas/ /usr/local/share/ca-certificates/\n"
                           "RUN update-ca-certificates >/dev/null\n" if len(files) > 1 else "")).encode()
    _run_build(client, files, base, timeout_s=300)
    steps = (f"FROM {base}\n"
             f"RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "
             f"{' '.join(PYTHON_STAND_IN)} >/dev/null && rm -rf /var/lib/apt/lists/* "
             "&& rm -f /usr/lib/python3*/EXTERNALLY-MANAGED\n")
    _run_build(client, {"Dockerfile": steps.encode()}, python, timeout_s=900)


def _run_build(client, files: dict[str, bytes] | Path, name: str, timeout_s: float,
               dockerfile: str = "Dockerfile", network: bool = True) -> None:
    """One classic-builder build, with the host's network or none; BuildFailed with the failing step and the
    last lines of its output (printable text only: it is shown to people)."""
    kwargs: dict = {"tag": name, "rm": True, "forcerm": True, "network_mode": "host" if network else "none",
                    "decode": True,
                    "dockerfile": dockerfile, "timeout": int(timeout_s)}
    if isinstance(files, Path):
        kwargs["path"] = str(files)
    else:
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w") as tar:
            for rel, data in files.items():
                info = tarfile.TarInfo(rel)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
        buf.seek(0)
        kwargs.update(fileobj=buf, custom_context=True)
    step, lines = "the build's start", []
    deadline = time.monotonic() + timeout_s
    try:
        for chunk in client.api.build(**kwargs):
            text = chunk.get("stream") or ""
            if text.startswith("Step "):
                step = text.strip()
            lines += [ln for ln in (UNPRINTABLE.sub("", ANSI.sub("", raw)).rstrip() for raw in text.splitlines())
                      if ln.strip()
                      and not ln.lstrip().startswith(("---> ", "Removing intermediate container"))]
            lines = lines[-TAIL_LINES * 4:]
            if "error" in chunk:
                raise BuildFailed(step, "\n".join([*lines[-TAIL_LINES:], str(chunk["error"]).strip()]))
            if time.monotonic() > deadline:
                raise BuildFailed(step, f"the build ran past {timeout_s:g}s (task.toml build_timeout_sec)")
    except BuildFailed:
        raise
    except Exception as exc:  # the engine's own refusal (a bad Dockerfile, a read timeout): the build failed
        raise BuildFailed(step, "\n".join([*lines[-TAIL_LINES:], f"{type(exc).__name__}: {exc}"])) from None


def build(rec: Recipe, client, *, timeout_s: float = 600, log: Callable[[str], None] = print) -> str:
    """Build the recipe's image unless the engine has it: 'cached' or 'built'; BuildFailed (remembered) else."""
    if present(client, rec.name):
        return "cached"
    if rec.stand_ins:
        ensure_stand_ins(client, log=log)
    record = _record_dir(rec.name)
    record.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="kbench-env-") as tmp:
        ctx = Path(tmp) / "context"
        shutil.copytree(rec.context, ctx, symlinks=True)
        (ctx / DOCKERFILE).write_text(rec.dockerfile, encoding="utf-8")
        try:
            _run_build(client, ctx, rec.name, timeout_s, dockerfile=DOCKERFILE, network=rec.network)
        except BuildFailed as exc:
            (record / "failed.json").write_text(json.dumps({"step": exc.step, "tail": exc.tail}), encoding="utf-8")
            raise
    (record / "failed.json").unlink(missing_ok=True)
    return "built"


def forget_failure(name: str) -> None:
    """A rebuild is asked for: the remembered failure no longer stands."""
    (_record_dir(name) / "failed.json").unlink(missing_ok=True)


def workdir_snapshot(name: str, inside: str) -> Path:
    """What the image holds at `inside` (its WORKDIR), copied out once into a folder of ours: regular files,
    folders and links that stay inside it, modes kept, owners not (the work folder is the session's)."""
    from sandbox.containers import engine

    folder = _record_dir(name) / ("workdir" + re.sub(r"[^A-Za-z0-9]+", "_", inside))
    if folder.is_dir():
        return folder
    client = engine.client()
    ctr = client.api.create_container(name, command=["true"], network_disabled=True)["Id"]
    tmp = Path(tempfile.mkdtemp(prefix=".workdir-", dir=_ensure(folder.parent)))
    try:
        try:
            stream, _stat = client.api.get_archive(ctr, inside.rstrip("/") + "/.")
        except Exception as exc:  # the path is not in the image: the work folder starts empty, as Docker's would
            if "404" not in str(exc) and "Not Found" not in str(exc):
                raise
            stream = []
        data = io.BytesIO(b"".join(stream))
        if data.getbuffer().nbytes:
            with tarfile.open(fileobj=data) as tar:
                tar.extractall(tmp, filter=_inside_only)
        publish(tmp, folder)
    finally:
        client.api.remove_container(ctr, force=True)
        shutil.rmtree(tmp, ignore_errors=True)
    return folder


def _ensure(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


def _inside_only(member: tarfile.TarInfo, dest: str) -> tarfile.TarInfo | None:
    """tarfile's data filter (no absolute paths, no links out, no devices), with the image's owners dropped; the
    archive's top folder ('.') becomes the snapshot folder itself."""
    if member.name in (".", "./"):
        return None
    member = tarfile.data_filter(member, dest)
    return member.replace(uid=None, gid=None, uname=None, gname=None, deep=False) if member else None
