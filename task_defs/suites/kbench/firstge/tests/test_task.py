# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import bisect
import math
import random

import kbtest as kb

m = kb.load("firstge.py")
first_ge = kb.func(m, "first_ge")


class Counted:
    """A read-only sequence: element i is f(i). Counts reads and records any use other than len() and s[i]."""

    def __init__(self, n, f):
        self._n, self._f = n, f
        self.reads = 0
        self.misuse = []

    def __len__(self):
        return self._n

    def __getitem__(self, i):
        if type(i) is not int:
            self.misuse.append("index %r" % (i,))
            raise TypeError("only integer indices are allowed here")
        if not 0 <= i < self._n:
            self.misuse.append("index %d out of range 0..%d" % (i, self._n - 1))
            raise IndexError("index out of range")
        self.reads += 1
        return self._f(i)

    def __iter__(self):
        self.misuse.append("iteration")
        raise TypeError("iteration is not allowed here")

    def __contains__(self, item):
        self.misuse.append("the in operator")
        raise TypeError("'in' is not allowed here")

    def __reversed__(self):
        self.misuse.append("reversed()")
        raise TypeError("reversed() is not allowed here")


def budget(n):
    return 2 * math.ceil(math.log2(n + 1)) + 5


def check_counted(seq, x, want, what):
    seq.reads, seq.misuse = 0, []
    try:
        got = first_ge(seq, x)
    except Exception as exc:
        if seq.misuse:
            raise AssertionError("%s: used the sequence in a way that is not allowed: %s" % (what, seq.misuse[0]))
        raise
    kb.ok(not seq.misuse, "%s: used the sequence in a way that is not allowed: %s" % (what, seq.misuse[:1]))
    kb.eq(got, want, what)
    n = len(seq)
    kb.ok(seq.reads <= budget(n), "%s: read %d elements, at most %d allowed for n=%d" % (what, seq.reads, budget(n), n))


@kb.case
def small_lists():
    data = [1, 3, 5, 7]
    for x, want in [(0, 0), (1, 0), (2, 1), (3, 1), (4, 2), (7, 3), (8, 4), (-100, 0), (100, 4)]:
        kb.eq(first_ge(data, x), want, "first_ge(%r, %r)" % (data, x))
    kb.eq(first_ge([], 5), 0, "first_ge([], 5)")
    kb.eq(first_ge([4], 4), 0, "first_ge([4], 4)")
    kb.eq(first_ge([4], 5), 1, "first_ge([4], 5)")
    kb.eq(first_ge([4], 3), 0, "first_ge([4], 3)")
    kb.eq(data, [1, 3, 5, 7], "the list after the calls")


@kb.case
def duplicates_give_the_first():
    data = [2, 2, 2, 5, 5, 9, 9, 9, 9]
    for x, want in [(2, 0), (3, 3), (5, 3), (6, 5), (9, 5), (10, 9), (1, 0)]:
        kb.eq(first_ge(data, x), want, "first_ge(%r, %r)" % (data, x))
    same = [7] * 100
    kb.eq(first_ge(same, 7), 0, "first_ge([7] * 100, 7)")
    kb.eq(first_ge(same, 8), 100, "first_ge([7] * 100, 8)")


@kb.case
def floats_and_strings():
    data = [-2.5, -1.0, 0.0, 0.5, 0.5, 3.25]
    for x, want in [(-3, 0), (-1, 1), (-0.5, 2), (0.5, 3), (0.51, 5), (3.25, 5), (4, 6)]:
        kb.eq(first_ge(data, x), want, "first_ge(%r, %r)" % (data, x))
    words = ["apple", "banana", "banana", "cherry", "fig"]
    for x, want in [("a", 0), ("banana", 1), ("blue", 3), ("fig", 4), ("grape", 5)]:
        kb.eq(first_ge(words, x), want, "first_ge(%r, %r)" % (words, x))


@kb.case
def random_lists_agree_with_bisect():
    rng = random.Random(31337)
    for _ in range(400):
        data = sorted(rng.randint(-20, 20) for _ in range(rng.randint(0, 30)))
        x = rng.randint(-22, 22)
        kb.eq(first_ge(data, x), bisect.bisect_left(data, x), "first_ge(%r, %r)" % (data, x))


@kb.case
def logarithmic_reads_on_large_sequences():
    n = 1_000_000
    evens = Counted(n, lambda i: 2 * i)  # 0, 2, 4, ...
    # (2001, 1001) first: a linear scan fails it after about a thousand reads, not half a million
    for x, want in [(2_001, 1_001), (-5, 0), (0, 0), (1, 1), (2, 1), (999_999, 500_000), (1_000_000, 500_000),
                    (1_999_998, n - 1), (1_999_999, n), (10**9, n)]:
        check_counted(evens, x, want, "first_ge(<0, 2, 4, ... of length %d>, %d)" % (n, x))
    n = 3_000_001
    runs = Counted(n, lambda i: i // 1000)  # each value repeated 1000 times
    for v in [0, 1, 7, 1234, 2999, 3000, 3001]:
        want = min(v * 1000, n)
        check_counted(runs, v, want, "first_ge(<i // 1000 for i < %d>, %d)" % (n, v))
    empty = Counted(0, lambda i: i)
    check_counted(empty, 3, 0, "first_ge(<empty sequence>, 3)")
    one = Counted(1, lambda i: 10)
    check_counted(one, 10, 0, "first_ge(<[10]>, 10)")
    check_counted(one, 11, 1, "first_ge(<[10]>, 11)")


@kb.case
def random_targets_on_counted_sequences():
    mid = Counted(4_000, lambda i: 3 * i)  # a cheap first check, so a linear scan fails fast here too
    check_counted(mid, 6_001, 2_001, "first_ge(<0, 3, 6, ... of length 4000>, 6001)")
    rng = random.Random(8)
    for _ in range(60):
        n = rng.randint(1, 200_000)
        step = rng.randint(1, 5)
        seq = Counted(n, lambda i, s=step: (i // s) * 3)
        x = rng.randint(-3, (n // step) * 3 + 3)
        want = bisect.bisect_left(range(0, ((n - 1) // step) * 3 + 1, 3), x) * step
        want = min(max(want, 0), n)
        check_counted(seq, x, want, "first_ge(<(i // %d) * 3 for i < %d>, %d)" % (step, n, x))


kb.main()
