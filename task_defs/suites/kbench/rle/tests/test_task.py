# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import random

import kbtest as kb

m = kb.load("rle.py")
encode = kb.func(m, "encode")
decode = kb.func(m, "decode")


def my_encode(s):
    out, i = [], 0
    while i < len(s):
        j = i
        while j < len(s) and s[j] == s[i]:
            j += 1
        out.append(str(j - i) + s[i])
        i = j
    return "".join(out)


@kb.case
def encode_examples():
    kb.eq(encode("aaab"), "3a1b", 'encode("aaab")')
    kb.eq(encode("abc"), "1a1b1c", 'encode("abc")')
    kb.eq(encode("aabbbaa"), "2a3b2a", 'encode("aabbbaa")')
    kb.eq(encode("x"), "1x", 'encode("x")')
    kb.eq(encode("AAaa"), "2A2a", 'encode("AAaa")')


@kb.case
def long_runs_use_several_digits():
    kb.eq(encode("z" * 12), "12z", 'encode("z" * 12)')
    kb.eq(encode("q" * 10 + "r"), "10q1r", 'encode("q" * 10 + "r")')
    kb.eq(encode("-" * 1000 + "+" * 105), "1000-105+", "encode of 1000 '-' and 105 '+'")
    kb.eq(decode("12z"), "z" * 12, 'decode("12z")')
    kb.eq(decode("10q1r"), "q" * 10 + "r", 'decode("10q1r")')
    kb.eq(decode("1000-105+"), "-" * 1000 + "+" * 105, 'decode("1000-105+")')


@kb.case
def empty_and_special_characters():
    kb.eq(encode(""), "", 'encode("")')
    kb.eq(decode(""), "", 'decode("")')
    kb.eq(encode("  \n\n\n\t"), "2 3\n1\t", "encode of spaces, newlines and a tab")
    kb.eq(decode("2 3\n1\t"), "  \n\n\n\t", "decode of spaces, newlines and a tab")
    kb.eq(encode("ééü!!"), "2é1ü2!", 'encode("ééü!!")')
    kb.eq(decode("2é1ü2!"), "ééü!!", 'decode("2é1ü2!")')
    kb.eq(decode("2a3a"), "aaaaa", 'decode("2a3a")')


@kb.case
def random_round_trips():
    rng = random.Random(20240611)
    alphabet = "ab c\n-é"
    for _ in range(300):
        s = "".join(rng.choice(alphabet) * rng.choice([1, 1, 2, 3, 11]) for _ in range(rng.randint(0, 25)))
        want = my_encode(s)
        kb.eq(encode(s), want, "encode(%r)" % s)
        kb.eq(decode(want), s, "decode(%r)" % want)


@kb.case
def malformed_raises_value_error():
    for bad in ["a", "ab", "3", "3a4", "3a12", "0a", "3a0b", "03a", "1a01b", "12", "a3", "-1a", "1a b"]:
        try:
            decode(bad)
        except ValueError:
            continue
        except Exception as exc:
            raise AssertionError("decode(%r): expected ValueError, got %r" % (bad, exc))
        raise AssertionError("decode(%r): expected ValueError, nothing was raised" % bad)


def must_reject(bad):
    try:
        decode(bad)
    except ValueError:
        return
    except Exception as exc:
        raise AssertionError("decode(%r): expected ValueError, got %r" % (bad, exc))
    raise AssertionError("decode(%r): expected ValueError, nothing was raised" % bad)


def decodes_to(s, want, what):
    """decode of a well-formed string; a ValueError there is a wrong answer, not a crash."""
    try:
        got = decode(s)
    except ValueError as exc:
        raise AssertionError("%s: expected %r, got ValueError(%s)" % (what, want, exc)) from None
    kb.eq(got, want, what)


@kb.case
def only_ascii_digits_count():
    # other Unicode digits are ordinary characters: never part of a count
    kb.eq(encode("\u0663\u0663"), "2\u0663", "encode of two ARABIC-INDIC DIGIT THREE")
    decodes_to("2\u0663", "\u0663\u0663", 'decode("2\u0663"), a count 2 and the character \u0663')
    decodes_to("1\u00b23x", "\u00b2xxx", 'decode("1\u00b23x"), superscript two as the character')
    decodes_to("12\uff11", "\uff11" * 12, "decode of 12 and FULLWIDTH DIGIT ONE")
    for bad in ["\u0663a", "\u00b2a", "\uff13a", "5\u0663\u0663"]:
        must_reject(bad)


@kb.case
def newline_is_a_character_not_an_end():
    decodes_to("3a1\n", "aaa\n", 'decode("3a1\\n")')
    decodes_to("1\n", "\n", 'decode("1\\n")')
    for bad in ["3a\n", "\n", "2b3c\n", "3a\r\n"]:
        must_reject(bad)


kb.main()
