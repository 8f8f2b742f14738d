# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""All word-break segmentations, with the suffix results memoized by start position."""


def word_breaks(s, words):
    vocab = set(words)
    lengths = sorted({len(w) for w in vocab})
    memo = {len(s): [[]]}

    def ways_from(start):
        # Iterative over positions from the end keeps the recursion depth at zero.
        return memo[start]

    for start in range(len(s) - 1, -1, -1):
        found = []
        for size in lengths:
            end = start + size
            if end > len(s):
                break
            if s[start:end] in vocab:
                for rest in ways_from(end):
                    found.append([s[start:end]] + rest)
        memo[start] = found
    return sorted(" ".join(way) for way in memo[0])
