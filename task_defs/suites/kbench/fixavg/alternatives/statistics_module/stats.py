# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Small descriptive statistics helpers for lists of numbers."""
import statistics


def mean(values):
    """Arithmetic mean of the values."""
    return statistics.mean(values)


def median(values):
    """Middle value of the sorted values (mean of the two middle ones for an even count)."""
    return statistics.median(values)


def mode(values):
    """Most common value; the smallest one when several are equally common."""
    if not values:
        raise ValueError("mode of empty data")
    return min(statistics.multimode(values))
