# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Sliding window: grow on the right until t is covered, then shrink from the left."""

from collections import Counter


def min_window(s, t):
    if not t or not s:
        return ""
    need = Counter(t)
    missing = len(t)
    best_len, best_start = None, 0
    left = 0
    for right, ch in enumerate(s):
        if need[ch] > 0:
            missing -= 1
        need[ch] -= 1
        if missing == 0:
            while need[s[left]] < 0:
                need[s[left]] += 1
                left += 1
            if best_len is None or right - left + 1 <= best_len:
                best_len, best_start = right - left + 1, left
            need[s[left]] += 1
            missing += 1
            left += 1
    return "" if best_len is None else s[best_start:best_start + best_len]
