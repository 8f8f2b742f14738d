# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
def lcs(a, b):
    out, j = [], 0
    for ch in a:
        k = b.find(ch, j)
        if k >= 0:
            out.append(ch)
            j = k + 1
    return "".join(out)
