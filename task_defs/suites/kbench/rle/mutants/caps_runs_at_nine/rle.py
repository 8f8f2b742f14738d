# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import re


def encode(s):
    out = []
    i = 0
    while i < len(s):
        j = i
        while j < len(s) and s[j] == s[i] and j - i < 9:
            j += 1
        out.append(str(j - i) + s[i])
        i = j
    return "".join(out)


def decode(s):
    if not re.fullmatch(r"(?:[1-9][0-9]*[^0-9])*", s, re.DOTALL):
        raise ValueError("malformed")
    return "".join(ch * int(n) for n, ch in re.findall(r"([1-9][0-9]*)([^0-9])", s, re.DOTALL))
