# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Small descriptive statistics helpers for lists of numbers."""
from collections import Counter


def mean(values):
    """Arithmetic mean of the values."""
    if not values:
        raise ValueError("mean of empty data")
    return sum(values) / len(values)


def median(values):
    """Middle value of the sorted values (mean of the two middle ones for an even count)."""
    if not values:
        raise ValueError("median of empty data")
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2


def mode(values):
    """Most common value; the smallest one when several are equally common."""
    if not values:
        raise ValueError("mode of empty data")
    return Counter(values).most_common(1)[0][0]
