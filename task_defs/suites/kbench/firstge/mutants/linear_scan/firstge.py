# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
def first_ge(sorted_list, x):
    n = len(sorted_list)
    i = 0
    while i < n and sorted_list[i] < x:
        i += 1
    return i
