# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
from itertools import groupby


def encode(s):
    return "".join("%d%s" % (len(list(run)), ch) for ch, run in groupby(s))


def decode(s):
    out = []
    digits = ""
    for ch in s:
        if "0" <= ch <= "9":
            if digits == "" and ch == "0":
                raise ValueError("a count cannot start with 0")
            digits += ch
        else:
            if digits == "":
                raise ValueError("character %r has no count before it" % ch)
            out.append(ch * int(digits))
            digits = ""
    if digits:
        raise ValueError("count %s at the end has no character" % digits)
    return "".join(out)
