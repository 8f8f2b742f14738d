# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import ast
import json
import random
import sys

import kbtest as kb

SOURCE = kb.read("bigmul.py")
m = kb.load("bigmul.py")
mul = kb.func(m, "multiply")


def check(a, b):
    want = str(int(a) * int(b))  # the test itself may use Python integers
    got = mul(a, b)
    what = "multiply(%r, %r)" % (a, b) if len(a) + len(b) < 60 else "multiply of %d- and %d-character inputs" % (len(a), len(b))
    kb.ok(isinstance(got, str), "%s must return a str, got %r" % (what, type(got).__name__))
    if got != want:
        at = next((i for i, (g, w) in enumerate(zip(got, want)) if g != w), min(len(got), len(want)))
        raise AssertionError("%s: expected %d characters %r..., got %d characters %r... (first difference at %d)" % (
            what, len(want), want[:30], len(got), got[:30], at))


def raises_for(a, b):
    try:
        kb.raises(ValueError, mul, a, b)
    except AssertionError as exc:
        raise AssertionError("multiply(%r, %r): %s" % (a, b, exc)) from None


@kb.case
def small_products():
    for a, b in [("2", "3"), ("12", "12"), ("999", "999"), ("1", "1"), ("123456789", "987654321"),
                 ("10", "10"), ("5", "20"), ("99999999999999999999", "99999999999999999999")]:
        check(a, b)


@kb.case
def zeros_and_leading_zeros():
    for a, b in [("0", "12345"), ("12345", "0"), ("0", "0"), ("007", "0008"), ("000", "5"), ("0000", "0000"),
                 ("0010", "0100"), ("1", "000000000000000000000000000001")]:
        check(a, b)
    kb.eq(mul("000", "000"), "0", "multiply('000', '000')")


@kb.case
def signs():
    for a, b in [("-3", "4"), ("3", "-4"), ("-3", "-4"), ("-12", "0"), ("0", "-12"), ("-0", "5"),
                 ("-000", "-7"), ("-007", "0003"), ("-1", "-1")]:
        check(a, b)
    kb.eq(mul("-0", "-0"), "0", "multiply('-0', '-0')")
    kb.eq(mul("-5", "0"), "0", "multiply('-5', '0')")


@kb.case
def hundreds_of_digits():
    rng = random.Random(8675309)
    for _ in range(12):
        a = "".join(rng.choice("0123456789") for _ in range(rng.randint(100, 600)))
        b = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 600)))
        if rng.random() < 0.4:
            a = "-" + a
        if rng.random() < 0.4:
            b = "-" + b
        check(a, b)
    check("9" * 500, "9" * 500)
    check("1" + "0" * 400, "-" + "0" * 10 + "1" + "0" * 300)


@kb.case
def bad_input_raises():
    for a, b in [("", "1"), ("1", ""), ("-", "2"), ("+5", "2"), ("1.5", "2"), (" 12", "2"), ("12 ", "2"),
                 ("12a", "3"), ("--3", "3"), ("3", "1_000"), ("\u0661\u0662", "3"), ("\u00b2", "3"), ("3", "-")]:
        raises_for(a, b)
    for a, b in [(12, "3"), ("3", None), (None, None), ("3", 3.0)]:
        raises_for(a, b)


# The test's own schoolbook multiplication: the cost the timed case measures the agent's code against.
OWN = r'''
def own_multiply(a, b):
    x = [ord(ch) - 48 for ch in reversed(a)]
    y = [ord(ch) - 48 for ch in reversed(b)]
    acc = [0] * (len(x) + len(y))
    for i, dx in enumerate(x):
        for j, dy in enumerate(y):
            acc[i + j] += dx * dy
    carry = 0
    for k in range(len(acc)):
        carry, acc[k] = divmod(acc[k] + carry, 10)
    return "".join(chr(48 + d) for d in reversed(acc)).lstrip("0") or "0"
'''


@kb.case
def two_thousand_digits_within_budget():
    rng = random.Random(1234)
    a = rng.choice("123456789") + "".join(rng.choice("0123456789") for _ in range(1999))
    b = rng.choice("123456789") + "".join(rng.choice("0123456789") for _ in range(1999))
    # schoolbook on 2,000 digits is 4 million digit products; 10 times the test's own schoolbook leaves room for
    # a slower but sound loop and none for work that grows faster (repeated addition, quadratic string building)
    got = kb.within_cost("multiplying two 2,000-digit numbers", kb.agent_code("bigmul.py", "answer(mod.multiply(*cases))"),
                         kb.reference_code(OWN, "answer(own_multiply(*cases))"), stdin=json.dumps([a, b]),
                         factor=10).value("the 2,000-digit product")
    sys.set_int_max_str_digits(0)
    kb.ok(got == str(int(a) * int(b)), "the product of two 2,000-digit numbers is wrong")


@kb.case
def no_whole_number_conversion():
    banned_names = {"int", "eval", "exec", "compile", "__import__"}
    banned_modules = {"decimal", "fractions", "builtins", "importlib", "_decimal", "_pydecimal"}
    for node in ast.walk(ast.parse(SOURCE)):
        if isinstance(node, ast.Name) and node.id in banned_names:
            raise AssertionError("bigmul.py uses the name %s (line %d)" % (node.id, node.lineno))
        if isinstance(node, ast.Attribute) and node.attr in banned_names:
            raise AssertionError("bigmul.py uses .%s (line %d)" % (node.attr, node.lineno))
        if isinstance(node, ast.Import):
            for alias in node.names:
                kb.ok(alias.name.split(".")[0] not in banned_modules,
                      "bigmul.py imports %s (line %d)" % (alias.name, node.lineno))
        if isinstance(node, ast.ImportFrom):
            kb.ok((node.module or "").split(".")[0] not in banned_modules,
                  "bigmul.py imports from %s (line %d)" % (node.module, node.lineno))


kb.main()
