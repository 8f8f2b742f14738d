# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import re

_COMMENT = re.compile(r"[;#].*", re.DOTALL)
_HEADER = re.compile(r"\[(.*)\]", re.DOTALL)
_PAIR = re.compile(r"([^=]*)=(.*)", re.DOTALL)


def parse_ini(text):
    order = []     # section names in first-seen order
    pairs = {}     # section name -> list of (key, value), later ones win when folded
    current = ""
    for n, raw in enumerate(text.split("\n"), 1):
        line = raw.strip()
        if not line or _COMMENT.fullmatch(line):
            continue
        header = _HEADER.fullmatch(line)
        if header:
            current = header.group(1).strip()
            if current not in pairs:
                order.append(current)
                pairs[current] = []
            continue
        pair = _PAIR.fullmatch(line)
        if pair is None:
            raise ValueError("line %d is neither a header nor key = value: %r" % (n, raw))
        key = pair.group(1).strip()
        if not key:
            raise ValueError("line %d has an empty key" % n)
        if current not in pairs:
            order.append(current)
            pairs[current] = []
        pairs[current].append((key, pair.group(2).strip()))
    return {name: dict(pairs[name]) for name in order}
