# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""All word-break segmentations: ways[start] holds every split of s[start:], filled from the end backwards."""


def word_breaks(s, words):
    if not s:
        return []
    vocab = set(words)
    lengths = sorted({len(w) for w in vocab})
    ways = {len(s): [[]]}
    for start in range(len(s) - 1, -1, -1):
        found = []
        for size in lengths:
            end = start + size
            if end > len(s):
                break
            piece = s[start:end]
            if piece in vocab:
                found.extend([piece] + rest for rest in ways[end])
        ways[start] = found
    return sorted(" ".join(way) for way in ways[0])
