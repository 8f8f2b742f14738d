# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
def merge_intervals(intervals):
    for start, end in intervals:
        if start > end:
            raise ValueError("interval start %r is greater than its end %r" % (start, end))
    merged = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return merged
