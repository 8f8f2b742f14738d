# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
def merge_intervals(intervals):
    pool = []
    for pair in intervals:
        start, end = pair
        if start > end:
            raise ValueError("bad interval %r: start is after end" % (pair,))
        pool.append([start, end])
    changed = True
    while changed:
        changed = False
        for i in range(len(pool)):
            for j in range(i + 1, len(pool)):
                a, b = pool[i], pool[j]
                if a[0] <= b[1] and b[0] <= a[1]:
                    pool[i] = [min(a[0], b[0]), max(a[1], b[1])]
                    del pool[j]
                    changed = True
                    break
            if changed:
                break
    return sorted(pool)
