# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Longest common subsequence by the classic length table, then a walk back from the end."""


def lcs(a, b):
    n, m = len(a), len(b)
    if n == 0 or m == 0:
        return ""
    # table[i][j] = LCS length of a[i:] and b[j:]
    a, b = a.lower(), b.lower()
    table = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        row, below = table[i], table[i + 1]
        ai = a[i]
        for j in range(m - 1, -1, -1):
            if ai == b[j]:
                row[j] = below[j + 1] + 1
            else:
                r, d = row[j + 1], below[j]
                row[j] = r if r > d else d
    a, b = a.lower(), b.lower()
    out = []
    i = j = 0
    while i < n and j < m:
        if a[i] == b[j]:
            out.append(a[i])
            i += 1
            j += 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return "".join(out)
