# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import sys
from functools import lru_cache


def word_breaks(s, words):
    vocab = frozenset(words)
    sizes = sorted({len(w) for w in vocab})
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 4 * len(s) + 100))

    @lru_cache(maxsize=None)
    def splits(start):
        if start == len(s):
            return ((),)
        out = []
        for size in sizes:
            piece = s[start:start + size]
            if len(piece) == size and piece in vocab:
                out.extend((piece,) + rest for rest in splits(start + size))
        return tuple(out)

    return sorted(" ".join(way) for way in splits(0))
