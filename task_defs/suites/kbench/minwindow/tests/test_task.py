# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import json
import random
from collections import Counter

import kbtest as kb

m = kb.load("minwindow.py")
mw = kb.func(m, "min_window")


def brute(s, t):
    """The test's own answer for short inputs: try every start, shortest first, leftmost on ties."""
    if not t:
        return ""
    need = Counter(t)
    for size in range(len(t), len(s) + 1):
        for start in range(0, len(s) - size + 1):
            window = Counter(s[start:start + size])
            if all(window[c] >= k for c, k in need.items()):
                return s[start:start + size]
    return ""


LINEAR = r'''
from collections import Counter
def linear(s, t):
    """The test's own answer for long inputs: a sliding window over positions of t's characters."""
    if not t:
        return ""
    need = Counter(t)
    have = Counter()
    covered = 0
    best = None
    left = 0
    for right, ch in enumerate(s):
        if ch in need:
            have[ch] += 1
            if have[ch] == need[ch]:
                covered += 1
        while covered == len(need):
            if best is None or right + 1 - left < best[1] - best[0]:
                best = (left, right + 1)
            lc = s[left]
            if lc in need:
                if have[lc] == need[lc]:
                    covered -= 1
                have[lc] -= 1
            left += 1
    return "" if best is None else s[best[0]:best[1]]
'''
exec(LINEAR)
RUN = "answer([%s(s, t) for s, t in cases])"


def check(s, t, want):
    kb.eq(mw(s, t), want, "min_window(%r, %r)" % (s, t))


@kb.case
def examples():
    check("ADOBECODEBANC", "ABC", "BANC")
    check("a", "a", "a")
    check("a", "aa", "")
    check("aa", "aa", "aa")
    check("xyzabc", "cba", "abc")
    check("this is a test string", "tist", "t stri")


@kb.case
def multiplicity_counts():
    check("aabbaab", "aab", "aab")
    check("abcabdebac", "abca", "abca")
    check("baab", "bb", "baab")
    check("aaflslflsldkalskaaa", "aaa", "aaa")
    check("caae", "cae", "caae")


@kb.case
def ties_go_to_the_leftmost():
    check("abcba", "ab", "ab")
    check("xbaxab", "ab", "ba")
    check("cabwefgewcwaefgcf", "cae", "cwae")
    check("zzqpzzpq", "pq", "qp")


@kb.case
def empty_and_impossible():
    check("", "a", "")
    check("abc", "", "")
    check("", "", "")
    check("abc", "d", "")
    check("aA", "A", "A")
    check("abc", "C", "")
    check("héllo wörld", "öl", "örl")


@kb.case
def random_short_cases():
    rng = random.Random(161803)
    for _ in range(400):
        alphabet = rng.choice(["ab", "abc", "abcd", "aAbB"])
        s = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 25)))
        t = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 5)))
        check(s, t, brute(s, t))


@kb.case
def long_inputs_within_budget():
    rng = random.Random(4)
    letters = "abcdefghijklmnopqrstuvwxyz"
    s1 = "".join(rng.choice(letters) for _ in range(200000))
    t1 = "".join(rng.choice(letters) for _ in range(1000))
    s2 = "".join(rng.choice("ab") for _ in range(199990)) + "c" + "".join(rng.choice("ab") for _ in range(9))
    t2 = "abc" * 3
    cases = [(s1, t1), (s2, t2)]
    # a sliding window touches each character of s twice; one that recounts its window, or compares whole
    # counters at every step, does 1,000 times that here, so 10 times the test's own window tells them apart
    got = kb.within_cost("min_window on two 200,000-character inputs",
                         kb.agent_code("minwindow.py", RUN % "mod.min_window"),
                         kb.reference_code(LINEAR, RUN % "linear"), stdin=json.dumps(cases), factor=10).value("min_window")
    for i, ((s, t), answer) in enumerate(zip(cases, got)):
        want = linear(s, t)
        kb.ok(answer == want, "long input %d: expected a window of length %d at index %d, got length %d at index %s" % (
            i + 1, len(want), s.find(want), len(answer), s.find(answer) if answer else "-"))


kb.main()
