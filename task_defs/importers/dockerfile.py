"""A Harbor task's Dockerfile, read rather than built: what its build would leave in the work folder on the host's
own system (the bwrap backend), or why that system cannot give it. The docker backend builds it instead
(sandbox/containers/task_images.py)."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path, PurePosixPath

from task_defs.importers.models import path_problem
from task_defs.models import env_problem, mount_problem

# commands that fetch something when they start a step of a RUN line: the image build needs the network
FETCHERS = {"apt", "apt-get", "apk", "yum", "dnf", "zypper", "pacman", "pip", "pip3", "uv", "uvx", "pipx", "npm",
            "npx", "yarn", "pnpm", "curl", "wget", "conda", "mamba", "micromamba", "gem", "cargo", "go", "rustup",
            "add-apt-repository"}
IGNORED = {"LABEL", "ARG", "EXPOSE", "CMD", "USER", "SHELL", "HEALTHCHECK", "STOPSIGNAL", "VOLUME",
           "MAINTAINER", "ONBUILD"}


def fetches(command: str) -> bool:
    for step in re.split(r"&&|\|\||;|\||\n", command):
        try:
            words = shlex.split(step)
        except ValueError:
            words = step.split()
        words = [w for w in words if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", w) and w != "sudo"]
        if not words:
            continue
        if words[0] in FETCHERS or (words[0] == "git" and words[1:2] in (["clone"], ["fetch"], ["pull"])):
            return True
        if words[0].startswith("python") and words[1:3] == ["-m", "pip"]:
            return True
    return False


def instructions(dockerfile: Path) -> list[tuple[int, str, str]]:
    """(line, INSTRUCTION, arguments), continuation lines joined, comments dropped."""
    out, buf, start = [], "", 0
    for n, line in enumerate(dockerfile.read_text(encoding="utf-8").splitlines(), 1):
        if not buf and (not line.strip() or line.lstrip().startswith("#")):
            continue
        start = start or n
        if line.rstrip().endswith("\\"):
            buf += line.rstrip()[:-1] + " "
            continue
        text = (buf + line).strip()
        buf = ""
        word, _, rest = text.partition(" ")
        out.append((start, word.upper(), rest.strip()))
        start = 0
    return out


def text_of(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return None


class HostEnvironment:
    """What the Dockerfile's build leaves in the work folder, or why the sandbox cannot give it."""

    def __init__(self, folder: Path):
        self.context = folder / "environment"
        self.files: dict[str, str] = {}
        self.setup: list[str] = []
        self.workdir: str | None = None
        self.env: dict[str, str] = {}
        self.stages = 0
        self.unavailable: str | None = None
        dockerfile = self.context / "Dockerfile"
        # a COPY may name the work folder before the WORKDIR that makes it one: Docker allows it, so do we
        self.final = final_workdir(dockerfile) if dockerfile.is_file() else None
        compose = [p.name for p in self.context.glob("docker-compose.y*ml")]
        if compose:
            self.unavailable = (f"environment/{compose[0]}: Docker Compose services beside the task's container, "
                                "which kbench does not start (one container a session)")
        elif dockerfile.is_file():
            for line, word, args in instructions(dockerfile):
                why = self._step(word, args)
                if why:
                    self.unavailable = f"environment/Dockerfile line {line}: {why}"
                    break

    def _step(self, word: str, args: str) -> str | None:
        if word == "FROM":
            self.stages += 1
            return "a multi-stage build" if self.stages > 1 else None
        if word == "WORKDIR":
            where = args if args.startswith("/") else str(PurePosixPath(self.workdir or "/") / args)
            problem = mount_problem(where)
            if problem:
                return f"WORKDIR {where}: {problem}"
            if self.workdir not in (None, where) and (self.files or self.setup):
                return f"WORKDIR {where} after work in {self.workdir}: one work folder is all the sandbox has"
            self.workdir = where
            return None
        if word in ("COPY", "ADD"):
            return self._copy(word, args)
        if word == "RUN":
            command = " ".join(_json_args(args)) if args.startswith("[") else args
            if fetches(command):
                return f"RUN {command[:100]}: the build fetches from the network"
            # the work folder is where the setup script starts, and WORKDIR names it too
            self.setup.append(command)
            return None
        if word == "ENV":
            return self._env(args)
        if word in IGNORED:
            return None
        return f"{word}: an instruction the sandbox cannot follow"

    def _env(self, args: str) -> str | None:
        """ENV for the task's sessions (the agent's, the setup's, the verifier's); what the host's system cannot
        take as given is the image's to set: a variable naming the system's own paths, or one built from others."""
        try:
            pairs = _env_pairs(args)
        except ValueError:
            return f"ENV {args[:60]}: not read as variables"
        for name, value in pairs:
            if name in ("LANG", "LC_ALL") and value == "C.UTF-8":
                continue  # what every session has already
            if env_problem(name):
                return f"ENV {name}: a variable of the system's own, which only the task's image sets"
            if "$" in value:
                return f"ENV {name}: built from other variables, which only the task's image expands"
            self.env[name] = value
        return None

    def _copy(self, word: str, args: str) -> str | None:
        parts = _json_args(args) if args.startswith("[") else shlex.split(args)
        flags = [p for p in parts if p.startswith("--")]
        parts = [p for p in parts if not p.startswith("--")]
        if any(f.startswith("--from") for f in flags):
            return f"{word} {args[:60]}: a multi-stage build"
        if len(parts) < 2:
            return f"{word} {args[:60]}: needs a source and a destination"
        *sources, dest = parts
        if (self.workdir or self.final) is None:
            return f"{word} to {dest}, and no WORKDIR names a work folder"
        target = PurePosixPath(dest if dest.startswith("/") else f"{self.workdir or '/'}/{dest}")
        base = PurePosixPath(self.workdir or self.final)
        if target != base and base not in target.parents:
            return f"{word} puts files at {target}, outside the work folder (WORKDIR {base})"
        into_folder = dest.endswith("/") or len(sources) > 1
        for src in sources:
            if re.match(r"^[a-z]+://", src):
                return f"{word} {src}: the build fetches from the network"
            problem = None if src in (".", "./") else path_problem(src.rstrip("/"))
            if problem:
                return f"{word} {src}: {problem}"
            found = self.context / src
            if found.is_dir():
                pairs = [(p, p.relative_to(found)) for p in sorted(found.rglob("*")) if p.is_file()]
                into = target
            elif found.is_file():
                pairs = [(found, PurePosixPath(found.name) if into_folder else PurePosixPath())]
                into = target
            else:
                return f"{word} {src}: no such file in environment/"
            for path, rel in pairs:
                if path.name == "Dockerfile" and path.parent == self.context:
                    continue
                text = text_of(path)
                if text is None:
                    return f"{word} {src}: {path.name} is not UTF-8 text, which a fixture cannot hold"
                where = PurePosixPath(into) / rel if str(rel) != "." else PurePosixPath(into)
                self.files[str(where.relative_to(base))] = text
        return None


def _env_pairs(args: str) -> list[tuple[str, str]]:
    """ENV's two spellings: `K=V [K2="v 2" ...]`, and the older `K the rest of the line`."""
    first = args.split(None, 1)
    if first and "=" not in first[0]:
        return [(first[0], first[1].strip() if len(first) > 1 else "")]
    return [tuple(word.split("=", 1)) for word in shlex.split(args)]  # type: ignore[misc]


def _json_args(args: str) -> list[str]:
    try:
        value = json.loads(args)
    except ValueError:
        return shlex.split(args)
    return [str(v) for v in value] if isinstance(value, list) else shlex.split(args)


def final_workdir(dockerfile: Path) -> str | None:
    """The WORKDIR the image ends with (relative ones joined to the one before), or None where none is set."""
    where: str | None = None
    for _line, word, args in instructions(dockerfile):
        if word == "FROM":
            where = None  # each stage starts from its base's
        elif word == "WORKDIR" and args:
            where = args if args.startswith("/") else str(PurePosixPath(where or "/") / args)
    return str(PurePosixPath(where)) if where else None
