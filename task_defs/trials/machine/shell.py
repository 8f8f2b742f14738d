"""A tiny interpreter of the command lines a model sends to the mock machine. Never a real shell: it parses the
text itself and calls the machine's programs, which are Python functions over the state.

What it reads: words split on blanks, with '...' and "..." quoting and backslash escapes; a leading ~ as the home
folder; `#` comments; commands separated by newlines and `;` (always run), `&&` (run when the last one exited 0)
and `||` (run when it did not), left to right as bash does. What it refuses, whole and before anything runs (exit
2, the construct named): pipes, redirection, command substitution, variables and assignments, background `&`,
subshells, braces and control structures. Unbalanced quotes or an operator with no command beside it are a
syntax error (exit 2, nothing runs). A program the machine does not have exits 127 (`command not found`).

Bounded: a command line of at most MAX_CHARS characters and MAX_COMMANDS commands, and a session of at most
MAX_COMMANDS commands over all its calls; what goes past is refused with a message that says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from task_defs.trials.machine.programs import Ctx, dispatch
from task_defs.trials.machine.state import HOME, State

MAX_CHARS = 4000
MAX_COMMANDS = 64
MAX_OUTPUT = 64 * 1024  # characters of output one call keeps
_BLANK = " \t"
_KEYWORDS = {"if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac", "function",
             "select", "!", "[[", "]]", "coproc", "time"}


class Refused(Exception):
    """A command line the machine will not run: `kind` is malformed (a syntax error), unsupported (a construct this
    machine lacks) or too_big (past a bound)."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind, self.message = kind, message


@dataclass(frozen=True)
class Invocation:
    argv: tuple[str, ...]
    program: str  # the program that ran it in the end (pacman for `sudo pacman -Q`), or the name not found
    status: int
    output: str


@dataclass
class CallResult:
    status: int
    output: str
    invocations: list[Invocation] = field(default_factory=list)
    refused: str | None = None  # malformed | unsupported | too_big: nothing of the call ran
    not_found: list[str] = field(default_factory=list)  # names run that are no program of the machine


def parse(text: str) -> list[tuple[str, list[str]]]:
    """(connector, argv) per simple command: `;` (run always), `&&` or `||`; raises Refused."""
    if len(text) > MAX_CHARS:
        raise Refused("too_big", f"the command line is {len(text)} characters; this machine takes {MAX_CHARS} at most")
    out: list[tuple[str, list[str]]] = []
    words: list[str] = []
    word: list[str] | None = None  # None: between words
    conn = ";"
    i, n = 0, len(text)

    def end_word():
        nonlocal word
        if word is not None:
            words.append("".join(word))
            word = None

    def end_command(next_conn: str, sep: str):
        nonlocal words, conn
        end_word()
        if words:
            if words[0] in _KEYWORDS:
                raise Refused("unsupported", f"`{words[0]}`: control structures are not supported on this machine")
            if "=" in words[0] and words[0].split("=", 1)[0].isidentifier():
                raise Refused("unsupported", f"`{words[0]}`: variables are not supported on this machine")
            out.append((conn, words))
            if len(out) > MAX_COMMANDS:
                raise Refused("too_big", f"more than {MAX_COMMANDS} commands in one command line")
        else:
            raise Refused("malformed", f"syntax error near `{sep}`: an operator with no command before it")
        words, conn = [], next_conn

    while i < n:
        c = text[i]
        if word is None and c in _BLANK:
            i += 1
            continue
        if c in _BLANK:
            end_word()
        elif c == "\n":
            if conn != ";" and not words and word is None:  # `a &&` then a newline: bash reads on
                i += 1
                continue
            if words or word is not None:
                end_command(";", "newline")
        elif c == "#" and word is None:
            while i < n and text[i] != "\n":
                i += 1
            continue
        elif text.startswith("&&", i) or text.startswith("||", i):
            end_command(text[i:i + 2], text[i:i + 2])
            i += 2
            continue
        elif c == ";":
            end_command(";", ";")
        elif c == "|":
            raise Refused("unsupported", "a pipe `|`: pipes are not supported on this machine; run each program "
                                         "on its own")
        elif c == "&":
            raise Refused("unsupported", "`&`: background jobs are not supported on this machine")
        elif c in "<>":
            raise Refused("unsupported", f"redirection `{c}`: redirection is not supported on this machine")
        elif c == "`" or text.startswith("$(", i):
            raise Refused("unsupported", "command substitution is not supported on this machine")
        elif c == "$" and i + 1 < n and (text[i + 1].isalnum() or text[i + 1] in "_{?@*#!$-"):
            raise Refused("unsupported", "variables are not supported on this machine")
        elif c in "(){}":
            raise Refused("unsupported", f"`{c}`: subshells, groups and brace expansion are not supported on this "
                                         "machine")
        elif c == "'":
            end = text.find("'", i + 1)
            if end < 0:
                raise Refused("malformed", "unexpected end of the command while looking for the matching `'`")
            word = (word or []) + [text[i + 1:end]]
            i = end + 1
            continue
        elif c == '"':
            i, part = _double_quoted(text, i + 1)
            word = (word or []) + [part]
            continue
        elif c == "\\":
            if i + 1 >= n:
                raise Refused("malformed", "a backslash at the end of the command line")
            if text[i + 1] != "\n":  # a backslash before a newline joins the lines
                word = (word or []) + [text[i + 1]]
            i += 2
            continue
        elif c == "~" and word is None and (i + 1 == n or text[i + 1] in "/ \t\n;"):
            word = [HOME]
        else:
            word = (word or []) + [c]
        i += 1
    end_word()
    if words:
        end_command(";", "end")
    elif conn != ";":
        raise Refused("malformed", f"syntax error: the command line ends after `{conn}`")
    return out


def _double_quoted(text: str, i: int) -> tuple[int, str]:
    part = []
    while i < len(text):
        c = text[i]
        if c == '"':
            return i + 1, "".join(part)
        if c == "\\" and i + 1 < len(text) and text[i + 1] in '"\\$`\n':
            if text[i + 1] != "\n":
                part.append(text[i + 1])
            i += 2
            continue
        if c == "`" or (c == "$" and i + 1 < len(text) and (text[i + 1].isalnum() or text[i + 1] in "_{(?@*#!$-")):
            what = "command substitution" if c == "`" or text[i + 1] == "(" else "variables"
            raise Refused("unsupported", f"{what} (inside double quotes) not supported on this machine")
        part.append(c)
        i += 1
    raise Refused("malformed", 'unexpected end of the command while looking for the matching `"`')


class Session:
    """One machine over the calls of one answer: each call's command line runs against the state the earlier ones
    left. `run` never raises on what a model sends."""

    def __init__(self, state: State):
        self.state = state
        self.commands = 0
        self.calls: list[CallResult] = []

    def run(self, text: str) -> CallResult:
        result = self._run(text)
        if len(result.output) > MAX_OUTPUT:
            result.output = result.output[:MAX_OUTPUT] + "\n[output cut]"
        self.calls.append(result)
        return result

    def _run(self, text: str) -> CallResult:
        if not isinstance(text, str):
            return CallResult(2, "the command must be a string", refused="malformed")
        try:
            commands = parse(text)
        except Refused as exc:
            return CallResult(2, f"bash: {exc.message}", refused=exc.kind)
        if self.commands + len(commands) > MAX_COMMANDS:
            return CallResult(2, f"bash: this session has run {self.commands} commands; {MAX_COMMANDS} is the most",
                              refused="too_big")
        self.commands += len(commands)
        result, status, printed = CallResult(0, ""), 0, []
        for k, (conn, argv) in enumerate(commands):
            if k and ((conn == "&&" and status != 0) or (conn == "||" and status == 0)):
                continue
            if argv[0] == "exit":
                status = int(argv[1]) if len(argv) > 1 and argv[1].isdigit() else status
                break
            ctx = Ctx(self.state)
            status = dispatch(ctx, argv)
            text_out = "".join(line + "\n" for line in ctx.out)
            printed.append(text_out)
            result.not_found.extend(ctx.not_found)
            result.invocations.append(Invocation(tuple(argv), ctx.ran[-1] if ctx.ran else argv[0], status, text_out))
        result.status, result.output = status, "".join(printed)
        return result
