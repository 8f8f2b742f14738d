# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
def min_window(s, t):
    if not t:
        return ""
    need = {}
    for ch in t:
        need[ch] = need.get(ch, 0) + 1
    spots = [(i, ch) for i, ch in enumerate(s) if ch in need]
    short = len(need)
    have = dict.fromkeys(need, 0)
    best = None
    lo = 0
    for i, ch in spots:
        have[ch] += 1
        if have[ch] == need[ch]:
            short -= 1
        while short == 0:
            first, fch = spots[lo]
            if best is None or i - first < best[1] - best[0]:
                best = (first, i)
            have[fch] -= 1
            if have[fch] < need[fch]:
                short += 1
            lo += 1
    return "" if best is None else s[best[0]:best[1] + 1]
