# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import kbtest as kb

m = kb.load("stats.py")
mean = kb.func(m, "mean")
median = kb.func(m, "median")
mode = kb.func(m, "mode")


def close(got, want, what):
    kb.ok(isinstance(got, (int, float)) and not isinstance(got, bool) and abs(got - want) < 1e-9,
          "%s: expected %r, got %r" % (what, want, got))


@kb.case
def mean_of_numbers():
    close(mean([1, 2, 3, 4]), 2.5, "mean([1, 2, 3, 4])")
    close(mean([5]), 5, "mean([5])")
    close(mean([-2, 2, -4, 4, 10]), 2, "mean([-2, 2, -4, 4, 10])")
    close(mean([0.5, 0.25]), 0.375, "mean([0.5, 0.25])")


@kb.case
def mean_of_empty_list():
    kb.raises(ValueError, mean, [])


@kb.case
def median_odd_count_unsorted():
    close(median([3, 1, 2]), 2, "median([3, 1, 2])")
    close(median([7]), 7, "median([7])")
    close(median([9, -1, 4, 4, 0]), 4, "median([9, -1, 4, 4, 0])")


@kb.case
def median_even_count():
    close(median([1, 2, 3, 4]), 2.5, "median([1, 2, 3, 4])")
    close(median([4, 1, 3, 2]), 2.5, "median([4, 1, 3, 2])")
    close(median([10, 20]), 15, "median([10, 20])")
    close(median([60, 10, 50, 20, 40, 30]), 35, "median([60, 10, 50, 20, 40, 30])")
    close(median([5, 5, 1, 9]), 5, "median([5, 5, 1, 9])")
    close(median([8, 1, 2, 7]), 4.5, "median([8, 1, 2, 7])")
    close(median([0, -3]), -1.5, "median([0, -3])")


@kb.case
def median_leaves_input_alone_and_rejects_empty():
    data = [5, 3, 9, 1]
    median(data)
    kb.eq(data, [5, 3, 9, 1], "the list after median()")
    kb.raises(ValueError, median, [])


@kb.case
def mode_with_ties_and_empty():
    kb.eq(mode([1, 2, 2, 3]), 2, "mode([1, 2, 2, 3])")
    kb.eq(mode([3, 1, 3, 1, 2]), 1, "mode([3, 1, 3, 1, 2])")
    kb.eq(mode([7]), 7, "mode([7])")
    kb.eq(mode([-1, -5, 4]), -5, "mode([-1, -5, 4])")
    kb.raises(ValueError, mode, [])


kb.main()
