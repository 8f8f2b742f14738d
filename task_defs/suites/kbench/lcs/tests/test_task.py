# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import json
import random

import kbtest as kb

m = kb.load("lcs.py")
lcs = kb.func(m, "lcs")


OWN = r'''
def lcs_length(a, b):
    prev = [0] * (len(b) + 1)
    for ch in a:
        cur = [0]
        for j, bj in enumerate(b):
            cur.append(prev[j] + 1 if ch == bj else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]
'''
exec(OWN)  # the test's own answer, one table row at a time; also the cost the timed case is measured against
RUN = "answer([%s(a, b) for a, b in cases])"


def is_subsequence(small, big):
    it = iter(big)
    return all(ch in it for ch in small)


def check_answer(a, b, got, what=None):
    what = what or "lcs(%r, %r)" % (a, b)
    kb.ok(isinstance(got, str), "%s must return a str, got %r" % (what, got))
    want = lcs_length(a, b)
    kb.ok(is_subsequence(got, a), "%s: %r is not a subsequence of the first string" % (what, got[:60]))
    kb.ok(is_subsequence(got, b), "%s: %r is not a subsequence of the second string" % (what, got[:60]))
    kb.ok(len(got) == want, "%s: expected a common subsequence of length %d, got length %d (%r)" % (
        what, want, len(got), got[:60]))


def check(a, b):
    check_answer(a, b, lcs(a, b))


@kb.case
def classic_examples():
    check("ABCBDAB", "BDCABA")
    check("AGGTAB", "GXTXAYB")
    kb.eq(lcs("AGGTAB", "GXTXAYB"), "GTAB", "lcs('AGGTAB', 'GXTXAYB') (the only longest one)")
    check("abcde", "ace")
    kb.eq(lcs("abcde", "ace"), "ace", "lcs('abcde', 'ace')")
    check("XMJYAUZ", "MZJAWXU")


@kb.case
def empty_and_disjoint():
    kb.eq(lcs("", "abc"), "", "lcs('', 'abc')")
    kb.eq(lcs("abc", ""), "", "lcs('abc', '')")
    kb.eq(lcs("", ""), "", "lcs('', '')")
    kb.eq(lcs("abc", "xyz"), "", "lcs('abc', 'xyz')")
    kb.eq(lcs("abc", "ABC"), "", "lcs('abc', 'ABC') is case-sensitive")


@kb.case
def whole_strings_and_substrings():
    kb.eq(lcs("same", "same"), "same", "lcs of equal strings")
    kb.eq(lcs("xaybz", "ab"), "ab", "lcs('xaybz', 'ab')")
    kb.eq(lcs("ab", "xaybz"), "ab", "lcs('ab', 'xaybz')")
    kb.eq(lcs("aaaa", "aa"), "aa", "lcs('aaaa', 'aa')")
    kb.eq(lcs("naïve café", "nave caf"), "nave caf", "lcs with non-ASCII characters")


@kb.case
def random_small_pairs():
    rng = random.Random(1618)
    for _ in range(300):
        alphabet = rng.choice(["ab", "abc", "ACGT", "abcdefgh"])
        a = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14)))
        b = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14)))
        check(a, b)


@kb.case
def long_strings_within_budget():
    rng = random.Random(99)
    pairs = [
        ("".join(rng.choice("ACGT") for _ in range(1000)), "".join(rng.choice("ACGT") for _ in range(1000))),
        ("".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(1000)),
         "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(1000))),
    ]
    # a length table is 10^6 cells per pair; 10 times the test's own row-by-row count leaves room for building
    # the table and walking it back, and none for a search that is exponential
    got = kb.within_cost("two lcs calls on 1,000-character strings", kb.agent_code("lcs.py", RUN % "mod.lcs"),
                         kb.reference_code(OWN, RUN % "lcs_length"), stdin=json.dumps(pairs), factor=10).value("lcs")
    for i, ((a, b), answer) in enumerate(zip(pairs, got)):
        check_answer(a, b, answer, "lcs on long pair %d" % (i + 1))


kb.main()
