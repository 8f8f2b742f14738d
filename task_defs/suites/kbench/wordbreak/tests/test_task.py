# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import json
import random

import kbtest as kb

m = kb.load("wordbreak.py")
wb = kb.func(m, "word_breaks")


ALL_WAYS = r'''
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
'''
exec(ALL_WAYS)
RUN = "answer([%s(s, words) for s, words in cases])"


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
def sorted_as_whole_strings():
    # a tab sorts below the joining space, so the order of the pieces is not the order of the joined strings
    check("a\tb", ["b", "a", "\tb", "a\t"], ["a\t b", "a \tb"])
    check("x\x01yx", ["x", "x\x01", "\x01yx", "yx", "\x01y"], ["x\x01 yx", "x \x01y x", "x \x01yx"])


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
@kb.case
def dead_ends_do_not_explode():
    cases = [
        ("a" * 150 + "b", ["a", "aa", "aaa", "aaaa", "aaaaa"]),
        ("ab" * 99 + "c", ["a", "b", "ab"]),
        ("a" * 120 + "b" + "aaa", ["a", "aa", "aaa", "a" * 120 + "b"]),
        ("x" * 190 + "y" * 10, ["x", "xx", "xxx", "y" * 10 + "z", "x" * 190 + "y" * 10]),
    ]
    # the test's own search takes milliseconds here (mostly starting Python), so the budget is 20 times at least
    # 0.1 s of CPU: ample for any search that skips dead ends, while one that explores them needs astronomically more
    got = kb.within_cost("word_breaks on 150 to 200 character inputs full of dead ends",
                         kb.agent_code("wordbreak.py", RUN % "mod.word_breaks"),
                         kb.reference_code(ALL_WAYS, RUN % "all_ways"), stdin=json.dumps(cases), factor=20,
                         floor=0.1).value("word_breaks")
    for (s, words), answer in zip(cases, got):
        kb.eq(answer, all_ways(s, words), "word_breaks(%r..., %r)" % (s[:20], words))


kb.main()
