# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import re

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
    out = []
    pos = 0
    pair = re.compile(r"([0-9]+)([^0-9])", re.DOTALL)
    while pos < len(s):
        m = pair.match(s, pos)
        if m is None or int(m.group(1)) == 0:
            raise ValueError("malformed at %d" % pos)
        out.append(m.group(2) * int(m.group(1)))
        pos = m.end()
    return "".join(out)
