# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import re
from collections import Counter


def top_words(text, k):
    if k <= 0:
        return []
    return Counter(w.lower() for w in re.findall(r"[A-Za-z]+", text)).most_common(k)
