# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
from collections import Counter


def group_anagrams(words):
    for w in words:
        if not isinstance(w, str):
            raise TypeError("not a str: %r" % (w,))
    buckets = {}
    for w in sorted(words):
        key = tuple(sorted(Counter(w).items()))
        buckets.setdefault(key, []).append(w)
    return list(buckets.values())
