# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
def group_anagrams(words):
    groups = {}
    for w in words:
        if not isinstance(w, str):
            raise TypeError("words must be strings")
        groups.setdefault("".join(sorted(w)), []).append(w)
    return [sorted(groups[k]) for k in sorted(groups)]
