# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import re

_VALID = re.compile(r"^(?:[1-9][0-9]*[^0-9])*$", re.DOTALL)
_PAIR = re.compile(r"([1-9][0-9]*)([^0-9])", re.DOTALL)

def encode(s):
    out = []
    i = 0
    while i < len(s):
        j = i
        while j < len(s) and s[j] == s[i]:
            j += 1
        out.append(str(j - i) + s[i])
        i = j
    return "".join(out)


def decode(s):
    if not _VALID.match(s):
        raise ValueError("malformed run-length string")
    return "".join(ch * int(n) for n, ch in _PAIR.findall(s))
