"""Text an agent made, made safe to print on the operator's terminal: control characters are shown, never obeyed.

A model's message, a file name, a tool's output or a hidden test's output can carry ESC sequences (clear the
screen, set the window title, OSC 8 links to anywhere, rewrite what was printed before), other C0 and C1 controls,
carriage returns that overwrite a line, and bidi overrides that make text read differently from what it is.
`visible` turns each such character into a visible escape (`\\x1b`, `\\u202e`); everything printable, spaces
included, is left alone.
"""

from __future__ import annotations

import sys
import unicodedata


def _escape(c: str) -> str:
    o = ord(c)
    if 0xDC80 <= o <= 0xDCFF:  # a byte of a name that is not UTF-8 (os.fsdecode's surrogate escape)
        return f"\\x{o - 0xDC00:02x}"
    if o < 0x100:
        return f"\\x{o:02x}"
    return f"\\u{o:04x}" if o < 0x10000 else f"\\U{o:08x}"


def _line(line: str, keep: str) -> str:
    if line.isprintable():
        return line
    return "".join(c if c.isprintable() or c in keep or unicodedata.category(c) == "Zs" else _escape(c) for c in line)


def visible(text: object, layout: bool = True) -> str:
    """`text` with every control, format (bidi, zero-width) and separator character shown as an escape. layout:
    newlines and tabs are kept (a block: a conversation, a file); without it they are shown too (one field on one
    line: a file name, an error message)."""
    text = text if isinstance(text, str) else str(text)
    if text.isprintable():
        return text
    if not layout:
        return _line(text, "")
    return "\n".join(_line(line, "\t") for line in text.split("\n"))


def say(text: str) -> None:
    """A line for the operator on stderr (tables go to stdout), escaped like everything else shown."""
    print(visible(text, layout=False), file=sys.stderr, flush=True)
