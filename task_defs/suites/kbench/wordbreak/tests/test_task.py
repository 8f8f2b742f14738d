# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import json
import random
import sys

import kbtest as kb

m = kb.load("wordbreak.py")
wb = kb.func(m, "word_breaks")


def all_ways(s, words):
    """The test's own answer: which suffixes can be split at all, then enumerate only through those."""
    vocab = set(words)
    n = len(s)
    ok = [False] * (n + 1)
    ok[n] = True
    for start in range(n - 1, -1, -1):
        ok[start] = any(ok[start + len(w)] for w in vocab if s.startswith(w, start))
    out = []

    def walk(start, pieces):
        if start == n:
            out.append(" ".join(pieces))
            return
        for w in vocab:
            if s.startswith(w, start) and ok[start + len(w)]:
                walk(start + len(w), pieces + [w])

    if ok[0]:
        walk(0, [])
    return sorted(set(out))


def check(s, words, want):
    kb.eq(wb(s, list(words)), want, "word_breaks(%r, %r)" % (s, words))


@kb.case
def examples():
    check("catsanddog", ["cat", "cats", "and", "sand", "dog"], ["cat sand dog", "cats and dog"])
    check("pineapplepenapple", ["apple", "pen", "applepen", "pine", "pineapple"],
          ["pine apple pen apple", "pine applepen apple", "pineapple pen apple"])
    check("catsandog", ["cats", "dog", "sand", "and", "cat"], [])
    check("dog", ["dog"], ["dog"])


@kb.case
def empty_inputs():
    check("", ["a", "b"], [""])
    check("", [], [""])
    check("abc", [], [])


@kb.case
def reuse_duplicates_and_order():
    check("aaa", ["a", "aa", "a"], ["a a a", "a aa", "aa a"])
    check("abab", ["ab", "a", "b", "ab"], ["a b a b", "a b ab", "ab a b", "ab ab"])
    check("Ab", ["ab", "a", "b"], [])
    check("xyz", ["xyz", "x", "yz", "xy", "z"], ["x yz", "xy z", "xyz"])


@kb.case
def many_ways():
    s, words = "a" * 14, ["a", "aa"]
    got = wb(s, words)
    kb.eq(len(got), 610, "number of ways for 14 a's with a, aa")
    kb.eq(got, all_ways(s, words), "word_breaks(%r, %r)" % (s, words))


@kb.case
def random_small_cases():
    rng = random.Random(2718)
    for _ in range(150):
        words = list({"".join(rng.choice("ab") for _ in range(rng.randint(1, 3))) for _ in range(rng.randint(1, 5))})
        s = "".join(rng.choice(words) for _ in range(rng.randint(0, 4)))
        if rng.random() < 0.3:
            s += rng.choice("abc")
        check(s, words, all_ways(s, words))


# Slow inputs run in a child interpreter, so an exponential search fails this case alone.
CHILD = r'''
import importlib.util, json, os, sys
work = os.getcwd()
sys.path = [p for p in sys.path if p not in ("", work)] + [work]
cases = json.loads(sys.stdin.read())
spec = importlib.util.spec_from_file_location("wordbreak", os.path.join(work, "wordbreak.py"))
mod = importlib.util.module_from_spec(spec)
sys.modules["wordbreak"] = mod
spec.loader.exec_module(mod)
out = [mod.word_breaks(s, words) for s, words in cases]
sys.stdout.write("\nKBCHILD " + json.dumps(out) + "\n")
'''


@kb.case
def dead_ends_do_not_explode():
    cases = [
        ("a" * 150 + "b", ["a", "aa", "aaa", "aaaa", "aaaaa"]),
        ("ab" * 99 + "c", ["a", "b", "ab"]),
        ("a" * 120 + "b" + "aaa", ["a", "aa", "aaa", "a" * 120 + "b"]),
        ("x" * 190 + "y" * 10, ["x", "xx", "xxx", "y" * 10 + "z", "x" * 190 + "y" * 10]),
    ]
    try:
        rc, out, err = kb.run([sys.executable, "-B", "-E", "-s", "-c", CHILD], stdin=json.dumps(cases), timeout=10)
    except AssertionError:
        raise AssertionError("word_breaks did not finish within 10 seconds on 150 to 200 character inputs")
    lines = [ln for ln in out.splitlines() if ln.startswith("KBCHILD ")]
    if rc != 0 or not lines:
        raise kb.Crash("the timed run failed (exit %s): %s" % (rc, err.strip()[-800:]))
    got = json.loads(lines[-1][len("KBCHILD "):])
    for (s, words), answer in zip(cases, got):
        kb.eq(answer, all_ways(s, words), "word_breaks(%r..., %r)" % (s[:20], words))


kb.main()
