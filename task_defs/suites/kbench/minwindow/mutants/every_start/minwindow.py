# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
from collections import Counter


def min_window(s, t):
    if not t:
        return ""
    need = Counter(t)
    best = ""
    for start in range(len(s)):
        if s[start] not in need:
            continue
        missing = dict(need)
        left = len(t)
        for end in range(start, len(s)):
            ch = s[end]
            if missing.get(ch, 0) > 0:
                missing[ch] -= 1
                left -= 1
                if left == 0:
                    if not best or end + 1 - start < len(best):
                        best = s[start:end + 1]
                    break
            if best and end + 1 - start >= len(best):
                break
    return best
