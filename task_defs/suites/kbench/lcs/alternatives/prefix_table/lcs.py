# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
def lcs(a, b):
    # best[i][j]: length of a longest common subsequence of a[:i] and b[:j]
    best = [[0] * (len(b) + 1)]
    for i, ca in enumerate(a, 1):
        row = [0]
        above = best[i - 1]
        for j, cb in enumerate(b, 1):
            row.append(above[j - 1] + 1 if ca == cb else max(above[j], row[j - 1]))
        best.append(row)
    picked = []
    i, j = len(a), len(b)
    while i and j:
        if a[i - 1] == b[j - 1]:
            picked.append(a[i - 1])
            i, j = i - 1, j - 1
        elif best[i - 1][j] >= best[i][j - 1]:
            i -= 1
        else:
            j -= 1
    return "".join(reversed(picked))
