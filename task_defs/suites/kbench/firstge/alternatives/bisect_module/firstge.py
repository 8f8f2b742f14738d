# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
from bisect import bisect_left


def first_ge(sorted_list, x):
    return bisect_left(sorted_list, x)
