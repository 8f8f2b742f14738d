# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
def first_ge(sorted_list, x):
    n = len(sorted_list)
    if n == 0 or sorted_list[-1] < x:
        return n
    lo, hi = 0, n - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if sorted_list[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo
