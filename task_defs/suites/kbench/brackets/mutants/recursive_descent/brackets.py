# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
CLOSE = {"(": ")", "[": "]", "{": "}"}


def balanced(s):
    toks = [c for c in s if c in "()[]{}"]

    def group_seq(i):
        # consume a run of balanced groups starting at i, return the index after it
        while i < len(toks) and toks[i] in CLOSE:
            j = group_seq(i + 1)
            if j >= len(toks) or toks[j] != CLOSE[toks[i]]:
                raise ValueError("unbalanced")
            i = j + 1
        return i

    try:
        return group_seq(0) == len(toks)
    except ValueError:
        return False
