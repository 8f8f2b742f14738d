"""Reading a Harbor test.sh: the Python tools its bootstrap fetches, the script without that bootstrap, and what it
still fetches (verifier_env.py builds the tools and documents the whole).

A bootstrap line becomes `: # kbench: <line> -- replaced: ...`, one line for each line so numbers hold. `:` rather
than a bare comment: an `if ...; then` whose body was only the installer stays valid shell, and `$?` reads 0 as
after a bootstrap that worked. Only whole commands are replaced (continuation lines joined); one that mixes a
bootstrap with anything else is kept as written, and named in `fetches` when it still needs the network.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass

from packaging.requirements import InvalidRequirement, Requirement

MARK = ": # kbench: {} -- replaced: the judge provides the pinned tools"
# apt packages a test.sh installs only to fetch its tools, which the judge brings itself
FETCH_ONLY_APT = {"curl", "wget", "ca-certificates", "python3-pip", "python3-venv"}
# installed only to install the rest: never a requirement of the tests
TOOLING = {"pip", "uv"}
FETCHERS = {"apt", "apt-get", "apk", "yum", "dnf", "zypper", "pacman", "npm", "npx", "yarn", "pnpm", "pipx", "conda",
            "mamba", "micromamba", "gem", "rustup", "add-apt-repository"}
UV_VALUE = {"--with", "-w", "--from", "-p", "--python", "--with-editable", "--with-requirements", "--index",
            "--index-url", "-i", "--extra-index-url", "--default-index", "--find-links", "-f", "--directory",
            "--project", "--package", "--extra", "--group", "--only-group", "--env-file", "--cache-dir",
            "--config-file", "--color", "--python-preference", "--resolution", "--prerelease", "--exclude-newer",
            "--index-strategy", "-C", "--config-setting", "--constraints", "-c", "--overrides"}
PIP_VALUE = {"-r", "--requirement", "-c", "--constraint", "-e", "--editable", "-t", "--target", "--prefix", "--root",
             "-i", "--index-url", "--extra-index-url", "-f", "--find-links", "--python", "-p", "--platform",
             "--python-version", "--implementation", "--abi", "--src", "--upgrade-strategy", "--progress-bar",
             "--report", "--cache-dir", "--log", "--timeout", "--retries", "--proxy", "--cert", "--client-cert",
             "--trusted-host", "--config-settings", "-C", "--only-binary", "--no-binary", "--root-user-action",
             "--index-strategy", "--exclude-newer", "--resolution", "--prerelease", "--python-platform"}
# what pip cannot take from PyPI by name alone: files, other indexes, other install places
PIP_UNPINNABLE = {"-r", "--requirement", "-c", "--constraint", "-e", "--editable", "-t", "--target", "--prefix",
                  "--root", "-i", "--index-url", "--extra-index-url", "-f", "--find-links"}
LEADING = {"if", "then", "else", "elif", "do", "while", "until", "!", "{", "}", "time", "exec", "command", "nohup",
           "env"}
SEPARATORS = {"&&", "||", ";", "&", ";;", "(", ")"}
PIPES = {"|", "|&"}
SHELLS = {"sh", "bash", "dash", "zsh", "source", "."}
REDIRECT = re.compile(r"[<>&]*[<>][<>&]*")
ASSIGN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=.*")
ENV_FILE = re.compile(r"(\$HOME|\$\{HOME\}|~|/root)/\.(local/bin|cargo)/env")
ACTIVATE = re.compile(r"\S*/bin/activate")
HEREDOC = re.compile(r"(?<!<)<<(-?)\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\2")
LOOPBACK = re.compile(r"(https?://)?(localhost|127(\.\d+){3}|0\.0\.0\.0|\[::1\])([:/].*)?")
PIP_WORD = re.compile(r"pip(\d+(\.\d+)?)?")
PYTHON_WORD = re.compile(r"python(\d+(\.\d+)?)?")


@dataclass(frozen=True)
class VerifierScript:
    requirements: tuple[str, ...]  # pins for tools_for, in the script's order
    script: str  # the test.sh to run, its bootstrap lines made no-ops
    fetches: tuple[int, str] | None  # (line, command) of the first line left that still needs the network
    python: str | None  # the Python version asked with -p/--python; reported only, never served


def pip_requirement(text: str) -> str | None:
    """`text` as pip would take it from PyPI by name (normalized), or None: a path, a URL, a variable, an option."""
    try:
        req = Requirement(text)
    except InvalidRequirement:
        return None
    if req.url or text.startswith("-") or re.search(r"\.(whl|zip|tar\.gz|tgz)$", req.name):
        return None
    return str(req)


def _pinned(text: str) -> str | None:
    """A uvx tool word naming one exact version (`pytest==8.4.1`, `pytest@8.4.1`) as a requirement."""
    req = pip_requirement(re.sub(r"@(?=\d)", "==", text, count=1))
    if req and [s.operator for s in Requirement(req).specifier] == ["=="]:
        return req
    return None


def _tokens(command: str) -> list[list[list[str]]] | None:
    """The command's steps (split at && || ; & and parentheses), each a pipeline of stages, each its words without
    redirections, leading assignments, sudo or shell keywords; None where the quoting does not close."""
    lex = shlex.shlex(command, posix=True, punctuation_chars=True)
    lex.whitespace_split, lex.commenters = True, ""
    try:
        tokens = list(lex)
    except ValueError:
        return None
    steps: list[list[list[str]]] = [[[]]]
    skip = False
    for tok in tokens:
        stage = steps[-1][-1]
        if skip:
            skip = False
        elif tok.startswith("#"):
            break
        elif tok in SEPARATORS:
            steps.append([[]])
        elif tok in PIPES:
            steps[-1].append([])
        elif REDIRECT.fullmatch(tok):
            if stage and stage[-1].isdigit():
                stage.pop()
            skip = True
        else:
            stage.append(tok)
    out = []
    for step in steps:
        stages = [_bare(stage) for stage in step]
        if any(stages):
            out.append([s for s in stages if s])
    return out


def _bare(words: list[str]) -> list[str]:
    i = 0
    while i < len(words) and (words[i] in LEADING or words[i] == "sudo" or ASSIGN.fullmatch(words[i])
                              or (words[i].startswith("-") and i and words[i - 1] == "sudo")):
        i += 1
    return words[i:]


def _uv_run(words: list[str]) -> tuple[list[str], str | None, bool] | None:
    """(requirements, python, every --with readable) of uvx / uv tool run / uv run words; None for other words."""
    if words[0] == "uvx":
        tool, rest = True, words[1:]
    elif words[:3] == ["uv", "tool", "run"]:
        tool, rest = True, words[3:]
    elif words[:2] == ["uv", "run"]:
        tool, rest = False, words[2:]
    else:
        return None
    reqs: list[str] = []
    python, ok, source, i = None, True, False, 0
    while i < len(rest) and rest[i].startswith("-") and rest[i] not in ("--", "-m", "--module"):
        name, eq, value = rest[i].partition("=") if rest[i].startswith("--") else (rest[i], "", "")
        if name.startswith("-p") and len(name) > 2 and not name.startswith("--"):
            name, value, eq = "-p", name[2:], "="
        if name in UV_VALUE:
            if not eq:
                i += 1
                value = rest[i] if i < len(rest) else ""
            if name in ("--with", "-w", "--from"):
                source = source or name == "--from"
                for piece in re.split(r",(?=\s*[A-Za-z0-9])", value):
                    req = pip_requirement(piece.strip())
                    ok = ok and req is not None
                    reqs += [req] if req else []
            elif name in ("-p", "--python"):
                python = python or value
            elif name in ("--with-requirements", "--with-editable"):
                ok = False
        i += 1
    if tool and not source and i < len(rest) and (req := _pinned(rest[i])):
        reqs.append(req)
    return reqs, python, ok


def _pip_install(words: list[str]) -> tuple[list[str], bool] | None:
    """(requirements, every package pinnable from PyPI) of a pip install; None for other words."""
    if PIP_WORD.fullmatch(words[0]):
        rest = words[1:]
    elif PYTHON_WORD.fullmatch(words[0]) and words[1:3] == ["-m", "pip"]:
        rest = words[3:]
    elif words[:2] == ["uv", "pip"]:
        rest = words[2:]
    else:
        return None
    while rest and rest[0].startswith("-"):  # pip's own options before its command
        rest = rest[1:]
    if rest[:1] != ["install"]:
        return None
    reqs: list[str] = []
    ok, i = True, 1
    while i < len(rest):
        word = rest[i]
        name = word.partition("=")[0]
        if word.startswith("-"):
            ok = ok and name not in PIP_UNPINNABLE
            i += 2 if name in PIP_VALUE and "=" not in word else 1
            continue
        req = pip_requirement(word)
        if req is None:
            ok = False
        elif Requirement(req).name.lower() not in TOOLING:
            reqs.append(req)
        i += 1
    return reqs, ok


def _bootstrap(step: list[list[str]]) -> bool | None:
    """True for a step that only brings tools the judge gives, None for one that does nothing, else False."""
    words = step[0]
    if "astral.sh/uv" in " ".join(w for stage in step for w in stage):
        return all(stage[0] in ("curl", "wget", "sh", "bash") for stage in step)
    if len(step) > 1:
        return False
    if words in (["true"], [":"], ["hash", "-r"]) or (words[0] == "export" and all(
            w.startswith("PATH=") for w in words[1:])) or (words[:2] in (["rm", "-rf"], ["rm", "-fr"])
                                                           and words[2:] == ["/var/lib/apt/lists/*"]):
        return None
    if words[0] in ("apt", "apt-get"):
        args = [w for i, w in enumerate(words[1:], 1) if not w.startswith("-") and words[i - 1] != "-o"]
        return args == ["update"] or (args[:1] == ["install"] and len(args) > 1
                                      and {a.split("=")[0] for a in args[1:]} <= FETCH_ONLY_APT)
    if words[0] in ("source", ".") and len(words) == 2:
        return bool(ENV_FILE.fullmatch(words[1]) or ACTIVATE.fullmatch(words[1]))
    if words[:2] == ["uv", "venv"] or (PYTHON_WORD.fullmatch(words[0]) and words[1:3] == ["-m", "venv"]):
        return True
    pip = _pip_install(words)
    return bool(pip and pip[1])


def _stage_fetches(words: list[str]) -> bool:
    first = os.path.basename(words[0])
    if first in FETCHERS:
        return True
    if first in ("curl", "wget"):
        hosts = [w for w in words[1:] if not w.startswith("-")]
        return not any(LOOPBACK.fullmatch(w) for w in hosts) or any(
            "://" in w and not LOOPBACK.fullmatch(w) for w in hosts)
    if words[0] == "git":
        return words[1:2] in (["clone"], ["fetch"], ["pull"], ["ls-remote"], ["submodule"])
    if words[0] in ("go", "cargo"):
        return words[1:2] in (["get"], ["install"], ["fetch"]) or words[1:3] == ["mod", "download"]
    if (run := _uv_run(words)) is not None:
        return not run[2]
    if words[0] in ("uv", "uvx"):
        return words[1:2] != ["venv"]
    if PIP_WORD.fullmatch(first) or (PYTHON_WORD.fullmatch(first) and words[1:3] == ["-m", "pip"]):
        sub = [w for w in words[1 if PIP_WORD.fullmatch(first) else 3:] if not w.startswith("-")][:1]
        return sub in (["install"], ["download"], ["wheel"])
    return False


def _line_fetches(command: str) -> bool:
    steps = _tokens(command)
    if steps is None:  # quoting this reader cannot follow: the first word of each part, as written
        steps = [[part.split()] for part in re.split(r"&&|\|\||;|\|", command) if part.split()]
    return any(_stage_fetches(stage) for step in steps for stage in step)


def _scan(line: str, quote: str | None) -> tuple[str | None, int]:
    """(the quote still open after `line`, where its code ends before a comment)."""
    i = 0
    while i < len(line):
        ch = line[i]
        if quote == "'":
            quote = None if ch == "'" else quote
        elif quote == '"':
            i += ch == "\\"
            quote = None if ch == '"' else quote
        elif ch == "\\":
            i += 1
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t;&|("):
            return quote, i
        i += 1
    return quote, len(line)


def _logical(lines: list[str]) -> Iterable[tuple[int, int, str, list[str]]]:
    """(first index, end index, command, []) of each command, its continuation lines joined (a trailing backslash,
    an open quote, a trailing && || |); then (first, end, that command, its lines) of each heredoc it opens."""
    i = 0
    while i < len(lines):
        start, parts, quote = i, [], None
        while i < len(lines):
            line = lines[i]
            was_open = quote
            quote, end = _scan(line, quote)
            code = line[:end].rstrip()
            i += 1
            escaped = (len(code) - len(code.rstrip("\\"))) % 2 == 1
            if quote is not None or was_open:
                parts.append(line + ("\n" if quote else " "))
            else:
                parts.append((code[:-1] if escaped else code) + " ")
            if not (quote or escaped or code.endswith(("&&", "|"))):
                break
        command = "".join(parts).strip()
        delims = [(m[1] == "-", m[3]) for m in HEREDOC.finditer(command)]
        yield start, i, command, []
        for strip_tabs, word in delims:
            body = i
            while i < len(lines) and (lines[i].lstrip("\t") if strip_tabs else lines[i]) != word:
                i += 1
            yield body, i, command, lines[body:i]
            i = min(i + 1, len(lines))


def read_test_script(text: str) -> VerifierScript:
    """What `text` (a test.sh) asks of the judge's tools, and the script to run in their place."""
    lines = text.split("\n")
    plain = [line.rstrip("\r") for line in lines]
    reqs: list[str] = []
    python: str | None = None
    fetch: tuple[int, str] | None = None
    for start, end, command, body in _logical(plain):
        if body:  # never replaced; looked at as commands only where a shell reads them (`bash <<EOF`)
            for n, line in enumerate(body, start + 1):
                if fetch is None and _shell_reads(command) and not line.lstrip().startswith("#") \
                        and _line_fetches(line):
                    fetch = (n, line.strip())
            continue
        steps = _tokens(command) if command else []
        if steps is None:
            if fetch is None and _line_fetches(command):
                fetch = (start + 1, command)
            continue
        kinds = [_bootstrap(step) for step in steps]
        replaced = True in kinds and False not in kinds
        for stage in (s for step in steps for s in step):
            run = _uv_run(stage)
            if run is None and stage[:2] in (["uv", "venv"], ["uv", "pip"]):
                run = ([], _python_option(stage[2:]), True)
            pip = _pip_install(stage) if replaced else None
            found = (run[0] if run else []) + (pip[0] if pip else [])
            reqs += [r for r in found if r not in reqs]
            python = python or (run[1] if run else None)
        if replaced:
            for n in range(start, end):
                body_text = plain[n].strip()
                indent = plain[n][:len(plain[n]) - len(plain[n].lstrip())]
                lines[n] = indent + MARK.format(body_text) + lines[n][len(plain[n]):]
        elif fetch is None and steps and _line_fetches(command):
            fetch = (start + 1, command)
    return VerifierScript(tuple(reqs), "\n".join(lines), fetch, python)


def _shell_reads(command: str) -> bool:
    steps = _tokens(command) or []
    return any(os.path.basename(stage[0]) in SHELLS for step in steps for stage in step)


def _python_option(words: list[str]) -> str | None:
    for i, word in enumerate(words):
        if word in ("-p", "--python") and i + 1 < len(words):
            return words[i + 1]
        if word.startswith("--python="):
            return word.partition("=")[2]
    return None
