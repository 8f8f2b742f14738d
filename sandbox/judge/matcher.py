r"""A bounded regex matcher for the trials' `stdout_regex`: what a search costs is counted work, never time.

Python's `re` has no bound (`(a+)+$` on thirty `a`s and a `b` backtracks for minutes), and a stop in wall time would
make a verdict depend on how busy the machine is. This backtracking machine counts its steps (an instruction run, a
character a repeat scans) and raises StepLimit past STEP_LIMIT: the same pattern on the same text takes the same
steps on any machine under any load. It answers whether `re.search(pattern, text, re.MULTILINE)` finds a match, for
this subset: anchors `^ $` (MULTILINE), `\A`, `\Z` (`\z` the same), `\b \B` (as re: neither in an empty text); `.`
(not a newline), `\s \S \d \D \w \W` (re's Unicode meanings), sets `[...]` with ranges, classes and `^`; groups
`(...)` `(?:...)`, `|`, lookahead `(?=...)` `(?!...)`; quantifiers `* + ? {m} {m,} {m,n} {,n}`, greedy or lazy;
escapes `\n \t \r \f \v \xhh \uhhhh \Uhhhhhhhh` and any escaped mark. Anything else (lookbehind, backreferences,
named groups, inline flags, possessive or atomic forms, a bare `{`) is refused by `compile_regex` (Unsupported,
naming it and where); the caller names the file, trial and field.
"""

from __future__ import annotations

import functools
import re

STEP_LIMIT = 1_000_000  # steps of one search: well under a second of one core; honest patterns take thousands
MAX_PROGRAM = 20_000  # instructions once counted repeats are spelled out
MAX_COUNT = 1000  # the largest {m,n}
MAX_DEPTH = 40  # groups nested

CHAR, TEST, STR, SPLIT, JMP, REP1, AT, MARK, PROGRESS, LOOK, MATCH = range(11)
BOL, EOL, BOS, EOS, WB, NWB = range(6)


class Unsupported(ValueError):
    """A pattern outside the matcher's subset (or no pattern at all)."""


class StepLimit(Exception):
    """The search passed its step limit: the pattern costs too much on this text, the same on every machine."""
    def __init__(self, limit: int):
        super().__init__(f"the pattern took more than {limit:,} matcher steps")
        self.limit = limit


_word = lambda c: c.isalnum() or c == "_"
_not_newline = "\n".__ne__
CLASSES = {"d": str.isdecimal, "s": str.isspace, "w": _word}  # as sre reads them for a str pattern
CLASSES.update({k.upper(): (lambda c, f=f: not f(c)) for k, f in CLASSES.items()})
LITERAL_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v"}
HEX = {"x": 2, "u": 4, "U": 8}
ASSERTS = {"A": BOS, "Z": EOS, "z": EOS, "b": WB, "B": NWB}
_COUNT = re.compile(r"\{(\d*)(,?)(\d*)\}")


def _any_of(chars: frozenset, ranges: tuple = (), tests: tuple = (), negate: bool = False):
    if not ranges and not tests and not negate:
        return chars.__contains__
    return lambda c: (c in chars or any(lo <= c <= hi for lo, hi in ranges) or any(t(c) for t in tests)) != negate


class _Parser:
    """Pattern -> tree: ("lit", ch) ("chr", test) ("seq", [..]) ("alt", [..]) ("rep", node, lo, hi, greedy)
    ("at", kind) ("look", node, negative). A group only groups: with no backreferences, capturing changes nothing."""
    def __init__(self, pattern: str):
        self.p, self.i, self.depth = pattern, 0, 0

    def fail(self, what: str, at: int | None = None):
        raise Unsupported(f"{what} at position {self.i if at is None else at}")

    def more(self, chars: str) -> bool:
        return self.i < len(self.p) and self.p[self.i] in chars

    def alt(self):
        branches = [self.seq()]
        while self.more("|"):
            self.i += 1
            branches.append(self.seq())
        if len(branches) == 1:
            return branches[0]
        if all(b[0] in ("lit", "chr") for b in branches):  # a|b|\d: one character, one test
            return ("chr", _any_of(frozenset(b[1] for b in branches if b[0] == "lit"), (),
                                   tuple(b[1] for b in branches if b[0] == "chr")))
        return ("alt", branches)

    def seq(self):
        items = []
        while self.i < len(self.p) and not self.more("|)"):
            items.append(self.quantified(self.atom()))
        return items[0] if len(items) == 1 else ("seq", items)

    def atom(self):
        start, c = self.i, self.p[self.i]
        self.i += 1
        if c == "(":
            return self.group(start)
        if c == "[":
            return self.charset(start)
        if c == "\\":
            return self.escape(start, False)
        if c in "*+?{":
            self.fail(f"{c!r} with nothing to repeat" + (" (write \\{ for the character)" if c == "{" else ""), start)
        return ("chr", _not_newline) if c == "." else ("at", BOL if c == "^" else EOL) if c in "^$" else ("lit", c)

    def group(self, start: int):
        ext, negative = self.p[self.i:self.i + 3], None
        if ext[:2] in ("?:", "?=", "?!"):
            negative = None if ext[1] == ":" else ext[1] == "!"
            self.i += 2
        elif ext.startswith("?"):
            what = "lookbehind" if ext in ("?<=", "?<!") else "a named group or (?P=...) backreference" \
                if ext[:2] == "?P" else "an inline flag, atomic group or comment"
            self.fail(f"({ext}...: {what} is outside the matcher's subset", start)
        self.depth += 1
        if self.depth > MAX_DEPTH:
            self.fail(f"groups nested over {MAX_DEPTH} deep", start)
        inner = self.alt()
        self.depth -= 1
        if not self.more(")"):
            self.fail("a '(' never closed", start)
        self.i += 1
        if negative is not None:
            return ("look", inner, negative)
        return ("seq", [inner]) if inner[0] in ("at", "look") else inner  # (?:\b)* repeats a group, as re allows

    def quantified(self, node):
        if not self.more("*+?{"):
            return node
        start, c = self.i, self.p[self.i]
        if c == "{":
            m = _COUNT.match(self.p, self.i)
            if not m or not (m.group(1) or m.group(2)):
                self.fail("a '{' that is no counted repeat {m}, {m,}, {m,n} (write \\{ for the character)")
            lo = int(m.group(1) or 0)
            hi = lo if not m.group(2) else int(m.group(3)) if m.group(3) else None
            self.i = m.end()
        else:
            lo, hi = {"*": (0, None), "+": (1, None), "?": (0, 1)}[c]
            self.i += 1
        if node[0] in ("at", "look"):
            self.fail("a repeated assertion (nothing to repeat)", start)
        if max(lo, hi or 0) > MAX_COUNT or (hi is not None and hi < lo):
            self.fail(f"a count over {MAX_COUNT}, or a minimum over its maximum", start)
        greedy = not self.more("?")
        self.i += not greedy
        if self.more("+"):
            self.fail("a possessive quantifier is outside the matcher's subset")
        if self.more("*+?") or (self.more("{") and _COUNT.match(self.p, self.i)):
            self.fail("a repeat of a repeat (multiple repeat)")
        return ("rep", node, lo, hi, greedy)

    def escape(self, start: int, in_set: bool):
        """The escape just past a backslash: ("lit", ch), ("chr", test) or ("at", kind)."""
        if self.i >= len(self.p):
            self.fail("a pattern that ends in a backslash", start)
        e = self.p[self.i]
        self.i += 1
        if e in "dDsSwW":
            return ("chr", CLASSES[e])
        if e in LITERAL_ESCAPES:
            return ("lit", LITERAL_ESCAPES[e])
        if e in HEX:
            digits = self.p[self.i:self.i + HEX[e]]
            if len(digits) != HEX[e] or any(d not in "0123456789abcdefABCDEF" for d in digits) or \
                    int(digits, 16) > 0x10FFFF:
                self.fail(f"\\{e} takes {HEX[e]} hex digits of a character", start)
            self.i += HEX[e]
            return ("lit", chr(int(digits, 16)))
        if e in ASSERTS and not in_set:
            return ("at", ASSERTS[e])
        if e in "0123456789":
            self.fail(f"\\{e}: backreferences and octal escapes are outside the matcher's subset", start)
        if e.isascii() and e.isalpha():
            self.fail(f"the escape \\{e} " + ("in a set (re reads [\\b] as a backspace: write \\x08)" if e == "b"
                                              else "is outside the matcher's subset"), start)
        return ("lit", e)

    def charset(self, start: int):
        negate = self.more("^")
        self.i += negate
        chars, ranges, tests, first = set(), [], [], True
        while True:
            if self.i >= len(self.p):
                self.fail("a '[' never closed", start)
            if self.more("]") and not first:
                self.i += 1
                return ("chr", _any_of(frozenset(chars), tuple(ranges), tuple(tests), negate))
            first = False
            lo = self.set_item()
            if self.more("-") and self.i + 1 < len(self.p) and self.p[self.i + 1] != "]":
                self.i += 1
                hi = self.set_item()
                if lo[0] != "lit" or hi[0] != "lit" or hi[1] < lo[1]:
                    self.fail("a bad character range", start)
                ranges.append((lo[1], hi[1]))
            else:
                (chars.add if lo[0] == "lit" else tests.append)(lo[1])

    def set_item(self):
        self.i += 1
        return self.escape(self.i - 1, True) if self.p[self.i - 1] == "\\" else ("lit", self.p[self.i - 1])


def _nullable(node) -> bool:  # whether the node can match taking no character (an assertion takes none)
    if node[0] in ("seq", "alt"):
        return (all if node[0] == "seq" else any)(_nullable(x) for x in node[1])
    return node[0] not in ("lit", "chr") and (node[0] != "rep" or node[2] == 0 or _nullable(node[1]))


class _Compiler:
    def __init__(self):
        self.subs, self.regs = [], 0

    def program(self, node) -> list:
        self.emit(node, prog := [])
        return prog + [(MATCH,)]

    def add(self, prog: list, op) -> int:
        if len(prog) >= MAX_PROGRAM:
            raise Unsupported(f"a pattern over {MAX_PROGRAM} instructions once its counted repeats are spelled out")
        prog.append(op)
        return len(prog) - 1

    def emit(self, node, prog: list) -> None:
        kind = node[0]
        if kind in ("lit", "chr", "at", "str"):
            self.add(prog, ({"lit": CHAR, "chr": TEST, "at": AT, "str": STR}[kind], node[1]))
        elif kind == "look":
            self.subs.append(self.program(node[1]))
            self.add(prog, (LOOK, len(self.subs) - 1, not node[2]))
        elif kind == "seq":
            items, k = node[1], 0
            while k < len(items):  # a run of literal characters is one string compare
                j = k + 1
                while items[k][0] == "lit" and j < len(items) and items[j][0] == "lit":
                    j += 1
                self.emit(("str", "".join(x[1] for x in items[k:j])) if j - k > 1 else items[k], prog)
                k = j
        elif kind == "alt":
            jumps = []
            for branch in node[1][:-1]:  # each branch but the last leaves the next ones open
                split = self.add(prog, None)
                self.emit(branch, prog)
                jumps.append(self.add(prog, None))
                prog[split] = (SPLIT, split + 1, len(prog))
            self.emit(node[1][-1], prog)
            for j in jumps:
                prog[j] = (JMP, len(prog))
        else:
            self.repeat(node, prog)

    def repeat(self, node, prog: list) -> None:
        _, body, lo, hi, greedy = node
        if body[0] in ("lit", "chr"):  # one character: scanned in place, given back one position at a time
            self.add(prog, (REP1, body[1].__eq__ if body[0] == "lit" else body[1], lo, hi, greedy))
            return
        for _ in range(lo):
            self.emit(body, prog)
        if hi is None:  # a loop; a body that can match nothing must have moved on to go round again
            top, guard, reg = self.add(prog, None), _nullable(body), self.regs
            self.regs += guard
            if guard:
                self.add(prog, (MARK, reg))
            self.emit(body, prog)
            if guard:
                self.add(prog, (PROGRESS, reg))
            self.add(prog, (JMP, top))
            prog[top] = (SPLIT, top + 1, len(prog)) if greedy else (SPLIT, len(prog), top + 1)
            return
        splits = []
        for _ in range(hi - lo):  # each further copy optional, and only after the one before
            splits.append(self.add(prog, None))
            self.emit(body, prog)
        for s in splits:
            prog[s] = (SPLIT, s + 1, len(prog)) if greedy else (SPLIT, len(prog), s + 1)


def _at(kind: int, s: str, i: int, n: int) -> bool:
    if kind == BOL:
        return i == 0 or s[i - 1] == "\n"
    if kind == EOL:
        return i == n or s[i] == "\n"
    if kind in (BOS, EOS):
        return i == (0 if kind == BOS else n)
    if n == 0:  # as re: no word boundary, nor its absence, in an empty text
        return False
    return ((i > 0 and _word(s[i - 1])) != (i < n and _word(s[i]))) == (kind == WB)


def _run(prog: list, subs: list, nregs: int, s: str, i: int, budget: int) -> tuple[bool, int]:
    """Whether `prog` matches at `i`, and its steps; StepLimit past `budget`. The stack holds choices left open: (0,
    pc, i) another way; (1, reg, old) a mark to undo; (2, pc, lo, cur) a greedy repeat's give-back; (3, pc, cur,
    end, test) a lazy repeat's one more."""
    n, stack, regs, pc, steps = len(s), [], [-1] * nregs, 0, 0
    while True:
        steps += 1
        if steps > budget:
            raise StepLimit(budget)
        op = prog[pc]
        code = op[0]
        if code == CHAR or code == TEST:
            ok = i < n and (s[i] == op[1] if code == CHAR else op[1](s[i]))
            i += ok
        elif code == SPLIT or code == JMP:  # go to op[1] (a split first keeps op[2] open)
            if code == SPLIT:
                stack.append((0, op[2], i))
            pc, ok = op[1] - 1, True
        elif code == REP1:
            _, test, lo, hi, greedy = op
            end, j = min(n, i + lo) if not greedy else n if hi is None else min(n, i + hi), i
            while j < end and test(s[j]):
                j += 1
            steps += j - i
            ok = j - i >= lo
            if ok and greedy and j > i + lo:
                stack.append((2, pc + 1, i + lo, j))
            elif ok and not greedy and (hi is None or hi > lo):
                stack.append((3, pc + 1, j, n if hi is None else min(n, i + hi), test))
            i = j if ok else i
        elif code == STR:
            ok = s.startswith(op[1], i)
            i += len(op[1]) if ok else 0
        elif code == AT:
            ok = _at(op[1], s, i, n)
        elif code == MARK:
            stack.append((1, op[1], regs[op[1]]))
            regs[op[1]], ok = i, True
        elif code == PROGRESS:
            ok = regs[op[1]] != i
        elif code == LOOK:
            found, used = _run(subs[op[1]], subs, nregs, s, i, budget - steps)
            steps += used
            ok = found == op[2]
        else:
            return True, steps
        if ok:
            pc += 1
            continue
        while True:  # fail: back to the latest choice left open
            if not stack:
                return False, steps
            e = stack.pop()
            if e[0] == 0:
                pc, i = e[1], e[2]
                break
            if e[0] == 1:
                regs[e[1]] = e[2]
            elif e[0] == 2:
                if e[3] - 1 > e[2]:
                    stack.append((2, e[1], e[2], e[3] - 1))
                pc, i = e[1], e[3] - 1
                break
            elif e[2] < e[3] and e[4](s[e[2]]):
                steps += 1
                if e[2] + 1 < e[3]:
                    stack.append((3, e[1], e[2] + 1, e[3], e[4]))
                pc, i = e[1], e[2] + 1
                break


class Matcher:
    """A compiled pattern: `search(text)` is `re.search(pattern, text, re.MULTILINE) is not None`, in bounded work."""
    def __init__(self, pattern: str):
        parser = _Parser(pattern)
        tree = parser.alt()
        if parser.i < len(pattern):
            parser.fail("an unbalanced ')'")
        c = _Compiler()
        self.pattern, self.prog, self.subs, self.nregs = pattern, c.program(tree), c.subs, c.regs
        first = tree[1][0] if tree[0] == "seq" and tree[1] else tree
        self.anchor = first[1] if first[0] == "at" and first[1] in (BOS, BOL) else None

    def _starts(self, s: str):
        """Where a match can begin: the text's start under \\A, a line's start under ^, anywhere else."""
        if self.anchor is None:
            yield from range(len(s) + 1)
            return
        i = 0
        while i >= 0:
            yield i
            i = -1 if self.anchor == BOS else s.find("\n", i) + 1 or -1

    def search_steps(self, text: str, limit: int = STEP_LIMIT) -> tuple[bool, int]:
        """(found, steps taken); StepLimit once the steps pass `limit`."""
        used = 0
        try:
            for i in self._starts(text):
                used += 1
                found, steps = _run(self.prog, self.subs, self.nregs, text, i, limit - used)
                used += steps
                if found:
                    return True, used
        except StepLimit:
            raise StepLimit(limit) from None
        return False, used

    def search(self, text: str, limit: int = STEP_LIMIT) -> bool:
        return self.search_steps(text, limit)[0]


@functools.lru_cache(maxsize=4096)
def compile_regex(pattern: str) -> Matcher:
    """The pattern compiled once and kept; Unsupported names what falls outside the subset, and where."""
    return Matcher(pattern)
