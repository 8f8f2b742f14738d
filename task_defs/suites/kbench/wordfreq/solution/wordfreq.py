# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import re
from collections import Counter

_WORD = re.compile(r"[A-Za-z]+")


def top_words(text, k):
    if k <= 0:
        return []
    counts = Counter(w.lower() for w in _WORD.findall(text))
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return ranked[:k]
