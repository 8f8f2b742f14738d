# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
def first_ge(sorted_list, x):
    lo, hi = 0, len(sorted_list) - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        v = sorted_list[mid]
        if v == x:
            while mid > 0 and sorted_list[mid - 1] == x:
                mid -= 1
            return mid
        if v < x:
            lo = mid + 1
        else:
            hi = mid - 1
    return lo
