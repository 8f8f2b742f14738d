# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import json
import random
import sys

import kbtest as kb

m = kb.load("lcs.py")
lcs = kb.func(m, "lcs")


def lcs_length(a, b):
    """The test's own answer: the LCS length, one table row at a time."""
    prev = [0] * (len(b) + 1)
    for ch in a:
        cur = [0]
        for j, bj in enumerate(b):
            cur.append(prev[j] + 1 if ch == bj else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


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


CHILD = r'''
import importlib.util, json, os, sys
work = os.getcwd()
sys.path = [p for p in sys.path if p not in ("", work)] + [work]
pairs = json.loads(sys.stdin.read())
spec = importlib.util.spec_from_file_location("lcs", os.path.join(work, "lcs.py"))
mod = importlib.util.module_from_spec(spec)
sys.modules["lcs"] = mod
spec.loader.exec_module(mod)
sys.stdout.write("\nKBCHILD " + json.dumps([mod.lcs(a, b) for a, b in pairs]) + "\n")
'''


@kb.case
def long_strings_in_time():
    rng = random.Random(99)
    pairs = [
        ("".join(rng.choice("ACGT") for _ in range(1000)), "".join(rng.choice("ACGT") for _ in range(1000))),
        ("".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(1000)),
         "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(1000))),
    ]
    try:
        rc, out, err = kb.run([sys.executable, "-B", "-E", "-s", "-c", CHILD], stdin=json.dumps(pairs), timeout=20)
    except AssertionError:
        raise AssertionError("two lcs calls on 1,000-character strings took more than 20 seconds")
    lines = [ln for ln in out.splitlines() if ln.startswith("KBCHILD ")]
    if rc != 0 or not lines:
        raise kb.Crash("the timed run failed (exit %s): %s" % (rc, err.strip()[-800:]))
    for i, ((a, b), got) in enumerate(zip(pairs, json.loads(lines[-1][len("KBCHILD "):]))):
        check_answer(a, b, got, "lcs on long pair %d" % (i + 1))


kb.main()
