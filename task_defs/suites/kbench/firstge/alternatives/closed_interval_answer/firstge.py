# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
def first_ge(sorted_list, x):
    answer = len(sorted_list)
    lo, hi = 0, answer - 1
    while lo <= hi:
        mid = lo + (hi - lo) // 2
        if sorted_list[mid] >= x:
            answer = mid
            hi = mid - 1
        else:
            lo = mid + 1
    return answer
