# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import json

import kbtest as kb

FILE = "wordcount.js"


def count(text):
    return kb.node(FILE, "m(%s)" % json.dumps(text))


def check(text, want):
    kb.eq(count(text), want, "wordCount(%r)" % (text,))


@kb.case
def simple_sentence():
    check("the cat and the hat", {"the": 2, "cat": 1, "and": 1, "hat": 1})
    check("one", {"one": 1})


@kb.case
def case_is_folded():
    check("Hello hello HELLO hElLo", {"hello": 4})
    check("The end. THE END!", {"the": 2, "end": 2})


@kb.case
def punctuation_digits_and_whitespace_separate():
    check("Wait... what?! 2 cats,3 dogs;\n\tdone-done", {"wait": 1, "what": 1, "cats": 1, "dogs": 1, "done": 2})
    check("  spaced   out  ", {"spaced": 1, "out": 1})
    check("don't stop, it's well-known", {"don": 1, "t": 1, "stop": 1, "it": 1, "s": 1, "well": 1, "known": 1})
    check("snake_case x1y2z", {"snake": 1, "case": 1, "x": 1, "y": 1, "z": 1})


@kb.case
def letters_outside_a_to_z_separate():
    check("café au lait", {"caf": 1, "au": 1, "lait": 1})
    check("naïve ÜBER straße", {"na": 1, "ve": 1, "ber": 1, "stra": 1, "e": 1})


@kb.case
def no_words():
    check("", {})
    check("   \n\t ", {})
    check("123 -- 4.5 !!!", {})


@kb.case
def property_names_are_words():
    check("constructor toString constructor valueOf __proto__ hasOwnProperty",
          {"constructor": 2, "tostring": 1, "valueof": 1, "proto": 1, "hasownproperty": 1})


@kb.case
def non_strings_throw_type_error():
    for arg in ["42", "null", "undefined", "['a b']", "{}"]:
        expr = ("(() => { try { m(%s); return 'no error'; } "
                "catch (e) { return e instanceof TypeError ? 'TypeError' : String(e); } })()" % arg)
        kb.eq(kb.node(FILE, expr), "TypeError", "wordCount(%s)" % arg)


@kb.case
def lower_case_comes_first():
    # toLowerCase runs before words are found: the Kelvin sign becomes k, dotted capital I becomes i and U+0307
    check("\u212aelvin kelvin", {"kelvin": 2})
    check("\u0130stanbul", {"i": 1, "stanbul": 1})
    check("\u212a-\u212a", {"k": 2})


kb.main()
