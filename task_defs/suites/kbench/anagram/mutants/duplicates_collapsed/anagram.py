# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
def group_anagrams(words):
    groups = {}
    for w in words:
        if not isinstance(w, str):
            raise TypeError("words must be strings")
        groups.setdefault("".join(sorted(w)), set()).add(w)
    return sorted((sorted(g) for g in groups.values()), key=lambda g: g[0])
