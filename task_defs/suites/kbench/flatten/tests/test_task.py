# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import copy

import kbtest as kb

m = kb.load("flatten.py")
flatten = kb.func(m, "flatten")

DEPTH = 10000


@kb.case
def nested_in_order():
    kb.eq(flatten([1, [2, [3, 4]], 5]), [1, 2, 3, 4, 5], "flatten([1, [2, [3, 4]], 5])")
    kb.eq(flatten([[[["a"]], "b"], [["c", ["d"]]], "e"]), ["a", "b", "c", "d", "e"], "four levels of letters")
    kb.eq(flatten([[1, 2], [3, [4, [5, [6]]]], 7, [[8], 9]]), list(range(1, 10)), "mixed depths")


@kb.case
def empty_lists_and_flat_input():
    kb.eq(flatten([]), [], "flatten([])")
    kb.eq(flatten([[], [[]], [[], [[[]]]]]), [], "only empty lists")
    kb.eq(flatten([[], 1, [], [2, []], []]), [1, 2], "empty lists among elements")
    kb.eq(flatten([0, False, "", None]), [0, False, "", None], "falsy elements are kept")


@kb.case
def other_types_are_elements():
    t = (1, [2, 3])
    d = {"k": [1]}
    s = {4, 5}
    got = flatten([t, ["ab", [d]], "cd", [None, s, [b"xy"]]])
    kb.eq(got, [t, "ab", d, "cd", None, s, b"xy"], "tuples, strings, dicts, sets, None and bytes are elements")
    kb.ok(got[0] is t and got[2] is d, "elements must be the original objects, not copies")


@kb.case
def input_unchanged_and_result_new():
    data = [1, [2, [3, [4]]], (5, [6]), [[7]]]
    before = copy.deepcopy(data)
    flatten(data)
    kb.eq(data, before, "the argument after flatten()")
    flat = [1, 2, 3]
    got = flatten(flat)
    kb.ok(got is not flat, "flatten of a flat list must return a new list, not the argument itself")
    got.append(4)
    kb.eq(flat, [1, 2, 3], "the flat argument after appending to the result")


@kb.case
def very_deep_nesting():
    # [[[...[0], 1], 2] ..., DEPTH]: deep on the left
    left = [0]
    for i in range(1, DEPTH + 1):
        left = [left, i]
    got = flatten(left)
    kb.ok(got == list(range(DEPTH + 1)), "left-deep list of depth %d: wrong result (first items %r)"
          % (DEPTH, got[:5]))
    # [0, [1, [2, ... [DEPTH]]]]: deep on the right
    right = [DEPTH]
    for i in range(DEPTH - 1, -1, -1):
        right = [i, right]
    got = flatten(right)
    kb.ok(got == list(range(DEPTH + 1)), "right-deep list of depth %d: wrong result (first items %r)"
          % (DEPTH, got[:5]))
    # one element at the bottom of DEPTH single-element lists
    single = "bottom"
    for _ in range(DEPTH):
        single = [single]
    kb.eq(flatten(single), ["bottom"], "one element under %d levels" % DEPTH)


@kb.case
def non_list_argument_raises():
    kb.raises(TypeError, flatten, (1, [2]))
    kb.raises(TypeError, flatten, "abc")
    kb.raises(TypeError, flatten, None)
    kb.raises(TypeError, flatten, 7)


kb.main()
