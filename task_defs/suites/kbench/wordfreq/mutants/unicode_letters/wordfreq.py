# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import re
from collections import Counter


def top_words(text, k):
    if k <= 0:
        return []
    counts = Counter(w.lower() for w in re.findall(r"[^\W\d_]+", text))
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
