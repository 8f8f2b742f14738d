# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
def merge_intervals(intervals):
    for start, end in intervals:
        if start > end:
            raise ValueError("interval start %r is greater than its end %r" % (start, end))
    if len(intervals) < 2:
        return intervals  # nothing to merge
    ordered = sorted(intervals, key=lambda iv: iv[0])
    merged = [[ordered[0][0], ordered[0][1]]]
    for start, end in ordered[1:]:
        if start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return merged
