# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
def word_breaks(s, words):
    vocab = sorted(set(words))
    n = len(s)
    ok = [False] * (n + 1)
    ok[n] = True
    for start in range(n - 1, -1, -1):
        ok[start] = any(ok[start + len(w)] for w in vocab if s.startswith(w, start))
    out = []

    def walk(start, pieces):
        if start == n:
            out.append(" ".join(pieces))
            return
        for w in vocab:
            if s.startswith(w, start) and ok[start + len(w)]:
                walk(start + len(w), pieces + [w])

    if ok[0]:
        walk(0, [])
    return out
