# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import heapq


def _is_ascii_letter(ch):
    return "a" <= ch <= "z" or "A" <= ch <= "Z"


def top_words(text, k):
    counts = {}
    word = []
    for ch in text + " ":
        if _is_ascii_letter(ch):
            word.append(ch)
        elif word:
            w = "".join(word).lower()
            counts[w] = counts.get(w, 0) + 1
            word = []
    if k < 1:
        return []
    best = heapq.nsmallest(k, counts.items(), key=lambda item: (-item[1], item[0]))
    return [(w, c) for w, c in best]
