# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
def merge_intervals(intervals):
    for start, end in intervals:
        if start > end:
            raise ValueError("start after end")
    merged = []
    for iv in sorted(intervals, key=lambda pair: (pair[0], pair[1])):
        if merged and iv[0] <= merged[-1][1]:
            if iv[1] > merged[-1][1]:
                merged[-1][1] = iv[1]
        elif isinstance(iv, list):
            merged.append(iv)
        else:
            merged.append(list(iv))
    return merged
