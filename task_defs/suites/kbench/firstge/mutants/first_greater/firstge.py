# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
def first_ge(sorted_list, x):
    lo, hi = 0, len(sorted_list)
    while lo < hi:
        mid = (lo + hi) // 2
        if sorted_list[mid] <= x:
            lo = mid + 1
        else:
            hi = mid
    return lo
