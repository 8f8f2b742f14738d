# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import re

_PAIR = re.compile(r"([1-9][0-9]*)([^0-9])", re.DOTALL)


def encode(s):
    out = []
    i = 0
    while i < len(s):
        j = i
        while j < len(s) and s[j] == s[i]:
            j += 1
        out.append("%d%s" % (j - i, s[i]))
        i = j
    return "".join(out)


def decode(s):
    out = []
    pos = 0
    while pos < len(s):
        m = _PAIR.match(s, pos)
        if m is None:
            raise ValueError("malformed run-length string at position %d" % pos)
        out.append(m.group(2) * int(m.group(1)))
        pos = m.end()
    return "".join(out)
