# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
_OPEN_TO_CLOSE = {"(": ")", "[": "]", "{": "}"}
_KEEP = set("()[]{}")


def balanced(s):
    drop = {ord(c): None for c in set(s) - _KEEP}
    only = s.translate(drop)
    if len(only) % 2:
        return False
    expect = []
    for ch in only:
        closer = _OPEN_TO_CLOSE.get(ch)
        if closer is not None:
            expect.append(closer)
        elif not expect or expect.pop() != ch:
            return False
    return len(expect) == 0
