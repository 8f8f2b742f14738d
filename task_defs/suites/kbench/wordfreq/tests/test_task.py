# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import random

import kbtest as kb

m = kb.load("wordfreq.py")
top = kb.func(m, "top_words")


@kb.case
def simple_counts():
    text = "the cat and the dog and the bird"
    kb.eq(top(text, 2), [("the", 3), ("and", 2)], "top_words(%r, 2)" % text)
    kb.eq(top(text, 10), [("the", 3), ("and", 2), ("bird", 1), ("cat", 1), ("dog", 1)], "top_words(%r, 10)" % text)
    got = top(text, 1)
    kb.ok(isinstance(got, list) and all(type(x) is tuple for x in got), "the result must be a list of tuples, got %r" % (got,))


@kb.case
def ties_are_alphabetical():
    text = "pear apple fig pear apple fig kiwi"
    kb.eq(top(text, 3), [("apple", 2), ("fig", 2), ("pear", 2)], "top_words(%r, 3)" % text)
    kb.eq(top(text, 2), [("apple", 2), ("fig", 2)], "top_words(%r, 2)" % text)
    text = "zeta zeta beta beta alpha gamma gamma gamma"
    kb.eq(top(text, 4), [("gamma", 3), ("beta", 2), ("zeta", 2), ("alpha", 1)], "top_words(%r, 4)" % text)


@kb.case
def case_is_folded():
    text = "Hello hello HELLO World world, hElLo!"
    kb.eq(top(text, 5), [("hello", 4), ("world", 2)], "top_words(%r, 5)" % text)


@kb.case
def what_separates_words():
    text = "don't stop-now: x1y2z, snake_case; 42 café naïve straße"
    want = sorted([("don", 1), ("t", 1), ("stop", 1), ("now", 1), ("x", 1), ("y", 1), ("z", 1), ("snake", 1),
                   ("case", 1), ("caf", 1), ("na", 1), ("ve", 1), ("stra", 1), ("e", 1)])
    kb.eq(top(text, 100), want, "top_words(%r, 100)" % text)
    text = "it's it's IT'S\tnew\nline\r\nnew"
    kb.eq(top(text, 3), [("it", 3), ("s", 3), ("new", 2)], "top_words(%r, 3)" % text)


@kb.case
def k_zero_negative_and_no_words():
    kb.eq(top("a a b", 0), [], 'top_words("a a b", 0)')
    kb.eq(top("a a b", -3), [], 'top_words("a a b", -3)')
    kb.eq(top("a a b c d", -1), [], 'top_words("a a b c d", -1)')
    kb.eq(top("x y z", -2), [], 'top_words("x y z", -2)')
    kb.eq(top("", 5), [], 'top_words("", 5)')
    kb.eq(top("123 ... --- 4'5 éé", 5), [], "text without words")


@kb.case
def random_texts():
    rng = random.Random(4242)
    vocab = ["ox", "Ox", "bee", "ant", "cow", "eel", "yak", "gnu"]
    seps = [" ", ", ", ".", "\n", "--", " 7 ", "'"]
    for _ in range(60):
        words = [rng.choice(vocab) for _ in range(rng.randint(0, 40))]
        text = "".join(w + rng.choice(seps) for w in words)
        counts = {}
        for w in words:
            counts[w.lower()] = counts.get(w.lower(), 0) + 1
        ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        k = rng.randint(0, 9)
        kb.eq(top(text, k), ranked[:k], "top_words(%r, %d)" % (text, k))


@kb.case
def words_are_found_before_lower_casing():
    # non-ASCII capitals separate words even where str.lower or casefold maps them onto ASCII letters
    text = "\u212aelvin kelvin \u0130stanbul \u017ftop stop"
    kb.eq(top(text, 10), [("elvin", 1), ("kelvin", 1), ("stanbul", 1), ("stop", 1), ("top", 1)], "top_words(%r, 10)" % text)
    text = "\u212a\u212a \u0130 \u017f"
    kb.eq(top(text, 3), [], "top_words(%r, 3)" % text)


kb.main()
