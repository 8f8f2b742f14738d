# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import copy
import random

import kbtest as kb

m = kb.load("merge.py")
merge = kb.func(m, "merge_intervals")


def check(intervals, want):
    shown = repr(intervals)  # taken before the call, in case the call changes the input
    got = merge(intervals)
    kb.ok(isinstance(got, list), "merge_intervals(%s) must return a list, got %r" % (shown, got))
    kb.ok(all(isinstance(x, list) for x in got), "every merged interval must be a list: %r" % (got,))
    kb.eq(got, want, "merge_intervals(%s)" % (shown,))


def model(intervals):
    out = []
    for s, e in sorted(intervals):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


@kb.case
def overlapping_sorted():
    check([[1, 3], [2, 6], [8, 10], [15, 18]], [[1, 6], [8, 10], [15, 18]])
    check([[1, 4], [4, 5]], [[1, 5]])
    check([[0, 2]], [[0, 2]])


@kb.case
def touching_merges_but_gap_does_not():
    check([[1, 2], [2, 3], [3, 7]], [[1, 7]])
    check([[1, 2], [3, 4]], [[1, 2], [3, 4]])
    check([[1.5, 2.5], [2.5, 3.0], [3.25, 4.0]], [[1.5, 3.0], [3.25, 4.0]])


@kb.case
def unsorted_and_contained():
    check([[8, 9], [1, 2], [4, 5]], [[1, 2], [4, 5], [8, 9]])
    check([[5, 7], [1, 10], [2, 3]], [[1, 10]])
    check([[1, 10], [2, 3], [4, 12]], [[1, 12]])
    check([[6, 8], [1, 9], [2, 4], [4, 7]], [[1, 9]])
    check([[-5, -1], [-10, -6], [-6, -5]], [[-10, -1]])


@kb.case
def empty_points_and_tuples():
    check([], [])
    check([[3, 3]], [[3, 3]])
    check([[3, 3], [3, 5], [7, 7]], [[3, 5], [7, 7]])
    check([(4, 6), (1, 4)], [[1, 6]])


@kb.case
def lists_tuples_ints_and_floats_mixed():
    # one input may hold both list and tuple intervals, and ints next to floats
    check([[5, 6], (1, 2), [2, 3], (6, 8)], [[1, 3], [5, 8]])
    check([(2.5, 4), [1, 2.5], (7, 7.5), [7.5, 9]], [[1, 4], [7, 9]])
    check([[3, 4], (3.0, 3.5), [0, 1]], [[0, 1], [3, 4]])


@kb.case
def input_not_modified():
    data = [[5, 8], [1, 3], [2, 6], [10, 11]]
    before = copy.deepcopy(data)
    check(data, [[1, 8], [10, 11]])
    kb.eq(data, before, "the input list after the call")


@kb.case
def result_is_a_new_list():
    for data in ([], [[0, 2]], [[1, 3], [5, 8]]):
        got = merge(data)
        kb.ok(got is not data, "merge_intervals(%r) must return a new list, not the list passed in" % (data,))
    single = [(3, 3)]
    check(single, [[3, 3]])


@kb.case
def random_against_model():
    rng = random.Random(20240611)
    for _ in range(300):
        ivs = []
        for _ in range(rng.randint(1, 12)):
            s = rng.randint(-20, 20)
            ivs.append([s, s + rng.randint(0, 6)])
        check(ivs, model(copy.deepcopy(ivs)))


@kb.case
def start_after_end_raises():
    kb.raises(ValueError, merge, [[5, 1]])
    kb.raises(ValueError, merge, [[1, 2], [4, 3]])
    kb.raises(ValueError, merge, [[0, 10], [2.5, 2.0]])


kb.main()
