# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import random

import kbtest as kb

m = kb.load("anagram.py")
group = kb.func(m, "group_anagrams")


def expected(words):
    buckets = {}
    for w in words:
        buckets.setdefault(tuple(sorted(w)), []).append(w)
    return sorted((sorted(b) for b in buckets.values()), key=lambda b: b[0])


@kb.case
def basic_groups():
    words = ["eat", "tea", "tan", "ate", "nat", "bat"]
    kb.eq(group(words), [["ate", "eat", "tea"], ["bat"], ["nat", "tan"]], "group_anagrams(%r)" % words)
    words = ["listen", "google", "silent", "enlist", "gogole", "inlets"]
    kb.eq(group(words), [["enlist", "inlets", "listen", "silent"], ["gogole", "google"]],
          "group_anagrams(%r)" % words)


@kb.case
def canonical_order():
    words = ["zz", "b", "ab", "ba", "a", "cba", "bca"]
    kb.eq(group(words), [["a"], ["ab", "ba"], ["b"], ["bca", "cba"], ["zz"]], "group_anagrams(%r)" % words)
    # Python's string order puts upper case before lower case
    words = ["bA", "Ab", "ab", "B"]
    kb.eq(group(words), [["Ab", "bA"], ["B"], ["ab"]], "group_anagrams(%r)" % words)


@kb.case
def case_sensitive_and_exact_counts():
    words = ["Tea", "eat", "tea", "aet"]
    kb.eq(group(words), [["Tea"], ["aet", "eat", "tea"]], "group_anagrams(%r)" % words)
    words = ["aab", "abb", "ab", "bab", "aba"]
    kb.eq(group(words), [["aab", "aba"], ["ab"], ["abb", "bab"]], "group_anagrams(%r)" % words)


@kb.case
def empty_duplicates_and_singletons():
    kb.eq(group([]), [], "group_anagrams([])")
    kb.eq(group(["solo"]), [["solo"]], 'group_anagrams(["solo"])')
    words = ["", "x", "", "stop", "pots", "stop"]
    kb.eq(group(words), [["", ""], ["pots", "stop", "stop"], ["x"]], "group_anagrams(%r)" % words)


@kb.case
def random_lists():
    rng = random.Random(77)
    for _ in range(100):
        base = ["".join(rng.choice("abcA") for _ in range(rng.randint(0, 4))) for _ in range(rng.randint(1, 6))]
        words = []
        for _ in range(rng.randint(0, 20)):
            w = list(rng.choice(base))
            rng.shuffle(w)
            words.append("".join(w))
        kb.eq(group(list(words)), expected(words), "group_anagrams(%r)" % words)


@kb.case
def non_string_raises():
    kb.raises(TypeError, group, ["ab", 5])
    kb.raises(TypeError, group, [None])
    kb.raises(TypeError, group, ["ab", b"ba"])
    kb.raises(TypeError, group, ["ab", ["b", "a"]])
    # a lone non-str that sorted() and "".join() accept, so nothing but an explicit check raises
    kb.raises(TypeError, group, [["b", "a"]])
    kb.raises(TypeError, group, [("t", "e", "a")])
    kb.raises(TypeError, group, [b"ab"])


kb.main()
