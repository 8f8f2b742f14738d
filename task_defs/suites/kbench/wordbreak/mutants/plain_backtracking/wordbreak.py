# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
def word_breaks(s, words):
    vocab = sorted(set(words))
    found = []

    def go(start, pieces):
        if start == len(s):
            found.append(" ".join(pieces))
            return
        for w in vocab:
            if s.startswith(w, start):
                go(start + len(w), pieces + [w])

    go(0, [])
    return sorted(found)
