"""The machine's programs and how one is called: a program is a Python function (ctx, args) -> exit status that
reads and changes ctx.state and prints into ctx.out. The machine has pacman (pacman.py), systemctl (systemctl.py),
deskctl (deskctl.py), sudo, and the shell builtins echo, true, false and `:`. A name given as a path to a system
folder (/usr/bin/pacman) is the program of that name; anything else exits 127, `command not found`.

The user is an ordinary one: what needs root (pacman's changes, system units' changes) fails without sudo as the
real tools fail, and sudo runs the rest of the line as root. User units (systemctl --user) need no sudo and fail
under it, as the real bus refuses root; deskctl refuses root (the settings belong to the user's session).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from task_defs.trials.machine.state import State

SYSTEM_DIRS = ("/usr/bin/", "/bin/", "/usr/sbin/", "/sbin/", "/usr/local/bin/")
BUILTINS = ("echo", "true", "false", ":")


@dataclass
class Ctx:
    state: State
    root: bool = False
    out: list[str] = field(default_factory=list)
    ran: list[str] = field(default_factory=list)  # the programs called, outermost first (sudo, then pacman)
    not_found: list[str] = field(default_factory=list)

    def say(self, *lines: str) -> None:
        for line in lines:
            self.out.extend(line.split("\n"))

    def fail(self, message: str, status: int = 1) -> int:
        self.say(message)
        return status


def resolve(name: str) -> str:
    for d in SYSTEM_DIRS:
        if name.startswith(d) and "/" not in name[len(d):]:
            return name[len(d):]
    return name


_REGISTRY: dict[str, Callable[[Ctx, list[str]], int]] = {}


def registry() -> dict[str, Callable[[Ctx, list[str]], int]]:
    """name -> program; built on first use (the programs' modules import this one)."""
    if not _REGISTRY:
        from task_defs.trials.machine.deskctl import deskctl
        from task_defs.trials.machine.pacman import pacman
        from task_defs.trials.machine.systemctl import systemctl

        _REGISTRY.update({"pacman": pacman, "systemctl": systemctl, "deskctl": deskctl, "sudo": sudo,
                          "echo": echo, "true": lambda ctx, a: 0, ":": lambda ctx, a: 0,
                          "false": lambda ctx, a: 1})
    return _REGISTRY


def dispatch(ctx: Ctx, argv: list[str], via: str = "bash") -> int:
    name = resolve(argv[0])
    program = registry().get(name)
    if program is None:
        ctx.not_found.append(argv[0])
        ctx.ran.append(argv[0])
        if via == "sudo":
            return ctx.fail(f"sudo: {argv[0]}: command not found", 1)
        what = "No such file or directory" if "/" in argv[0] else "command not found"
        return ctx.fail(f"bash: {argv[0]}: {what}", 127)
    ctx.ran.append(name)
    return program(ctx, argv[1:])


def echo(ctx: Ctx, args: list[str]) -> int:
    newline = True
    while args and args[0] in ("-n", "-e", "-E", "-ne", "-en"):
        newline = newline and "n" not in args[0]
        args = args[1:]
    text = " ".join(args)
    if newline:
        ctx.say(text)
    elif text:
        ctx.out.append(text)  # no newline of its own: the interpreter ends every line; close enough here
    return 0


SUDO_FLAGS = ("-n", "--non-interactive", "-E", "--preserve-env", "-H", "--set-home", "-k", "-S", "--stdin")


def sudo(ctx: Ctx, args: list[str]) -> int:
    while args and args[0].startswith("-"):
        flag = args[0]
        if flag == "--":
            args = args[1:]
            break
        if flag in ("-u", "--user", "-g", "--group") or flag.startswith(("-u", "--user=")):
            return ctx.fail("sudo: running as another user is not allowed on this machine", 1)
        if flag in ("-i", "-s", "--login", "--shell"):
            return ctx.fail("sudo: an interactive root shell is not available here; put the command after sudo", 1)
        if flag not in SUDO_FLAGS:
            return ctx.fail(f"sudo: invalid option -- '{flag.lstrip('-')}'\nusage: sudo [-nEHkS] command [arg ...]", 1)
        args = args[1:]
    if not args:
        return ctx.fail("usage: sudo [-nEHkS] command [arg ...]", 1)
    was = ctx.root
    ctx.root = True
    try:
        return dispatch(ctx, args, via="sudo")
    finally:
        ctx.root = was
