# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import ast
import math
import random

import kbtest as kb

SOURCE = kb.read("calc.py")
m = kb.load("calc.py")
ev = kb.func(m, "evaluate")


def same(got, want, what):
    """Equal value (floats within rounding) and the same type: 3 and 3.0 are not the same result here."""
    kb.ok(type(got) is type(want), "%s: expected the %s %r, got %r" % (what, type(want).__name__, want, got))
    if isinstance(want, float):
        kb.ok(math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12), "%s: expected %r, got %r" % (what, want, got))
    else:
        kb.eq(got, want, what)


def raises_for(exc_types, fn, *args):
    """kb.raises, naming the call in the failure message."""
    try:
        kb.raises(exc_types, fn, *args)
    except AssertionError as exc:
        raise AssertionError("%s(%s): %s" % (getattr(fn, "__name__", "call"), ", ".join(repr(a) for a in args), exc)) from None


@kb.case
def precedence_and_parentheses():
    for expr, want in [("7", 7), ("1+2*3", 7), ("(1+2)*3", 9), ("2*3+4*5", 26), ("10-3-2", 5),
                       ("2*(3+(4-1))*2", 24), ("((((5))))", 5), ("  12 +  30 ", 42), ("100 - 2 * 3 * 4", 76)]:
        same(ev(expr), want, "evaluate(%r)" % expr)


@kb.case
def integer_results_stay_exact_ints():
    for expr in ["2+3*4", "0", "7-10", "99999999999999999999*99999999999999999999"]:
        got = ev(expr)
        kb.ok(type(got) is int, "evaluate(%r) must return an int, got %r" % (expr, got))
    kb.eq(ev("99999999999999999999*99999999999999999999"), 99999999999999999999 * 99999999999999999999,
          "big integer product")


@kb.case
def true_division_and_floats():
    for expr, want in [("7/2", 3.5), ("6/3", 2.0), ("8/4/2", 1.0), ("1+2/4", 1.5), ("2.5*4", 10.0),
                       ("0.5+0.25", 0.75), ("1/3*3", 1.0), ("(1+2)/(3+5)", 0.375)]:
        got = ev(expr)
        kb.ok(type(got) is float, "evaluate(%r) must return a float, got %r" % (expr, got))
        same(got, want, "evaluate(%r)" % expr)
    raises_for(ZeroDivisionError, ev, "1/0")
    raises_for(ZeroDivisionError, ev, "5/(2-2)")


@kb.case
def whole_float_literals_stay_floats():
    # a literal with a decimal point is a float even when its fraction is zero, and so is what it touches
    for expr, want in [("2.0", 2.0), ("2.0*3", 6.0), ("1+1.0", 2.0), ("-3.00", -3.0), ("(4.0-1)*2", 6.0),
                       ("0.0", 0.0), ("10.0-10", 0.0)]:
        got = ev(expr)
        kb.ok(type(got) is float and got == want, "evaluate(%r): expected the float %r, got %r" % (expr, want, got))


@kb.case
def unary_minus():
    for expr, want in [("-3", -3), ("--3", 3), ("2*-3", -6), ("-(2+3)*2", -10), ("2--3", 5), ("-2-3", -5),
                       ("- 3", -3), ("-(-(4))", 4), ("3*-(1+1)", -6)]:
        same(ev(expr), want, "evaluate(%r)" % expr)
    same(ev("4/-2"), -2.0, "evaluate('4/-2')")


@kb.case
def malformed_input_raises_value_error():
    for expr in ["", "   ", "2+", "(1", "1)", "()", "1 $ 2", "1 2", "*3", "2(3)", "2**3", "1+(2*)", "3 4 +",
                 "(1+2", "1+2)", "2 -", "/5", "1.2.3", "abc", "3)+(4"]:
        raises_for(ValueError, ev, expr)


@kb.case
def malformed_numbers_raise_value_error():
    # a point needs digits on both sides; digits are ASCII 0-9 only
    for expr in ["1.", ".5", "1.+2", "3*.5", "2 . 5", "1..2", "(4.)", "1_0", "1e3", "\u0661\u0662", "\uff17",
                 "0x10"]:
        raises_for(ValueError, ev, expr)


@kb.case
def no_unary_plus_and_only_spaces():
    for expr in ["+3", "2*+3", "1++2", "+(1)", "1+2\n", "\t1+2", "1\t+ 2", "3\r", "\n", "1\u00a0+2"]:
        raises_for(ValueError, ev, expr)


def _random_expr(rng, depth):
    if depth == 0 or rng.random() < 0.25:
        if rng.random() < 0.2:
            return "%d.%d" % (rng.randint(0, 20), rng.randint(0, 99))
        return str(rng.randint(0, 60))
    kind = rng.random()
    if kind < 0.15:
        return "-" + _random_expr(rng, depth - 1)
    if kind < 0.3:
        return "(" + _random_expr(rng, depth - 1) + ")"
    op = rng.choice(["+", "-", "*", "/"])
    gap = " " * rng.randint(0, 1)
    return _random_expr(rng, depth - 1) + gap + op + gap + _random_expr(rng, depth - 1)


@kb.case
def random_expressions():
    rng = random.Random(20240611)
    checked = 0
    while checked < 300:
        expr = _random_expr(rng, 5)
        try:
            want = eval(expr)  # the test's own oracle: every generated expression is also valid Python
        except ZeroDivisionError:
            continue
        same(ev(expr), float(want) if isinstance(want, float) else want, "evaluate(%r)" % expr)
        checked += 1


@kb.case
def source_has_no_eval():
    tree = ast.parse(SOURCE)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in ("eval", "exec", "compile", "__import__"):
            raise AssertionError("calc.py uses %s (line %d)" % (node.id, node.lineno))
        if isinstance(node, ast.Attribute) and node.attr in ("eval", "exec", "literal_eval"):
            raise AssertionError("calc.py uses .%s (line %d)" % (node.attr, node.lineno))
        if isinstance(node, ast.Import):
            for alias in node.names:
                kb.ok(alias.name.split(".")[0] != "ast", "calc.py imports ast (line %d)" % node.lineno)
        if isinstance(node, ast.ImportFrom):
            kb.ok((node.module or "").split(".")[0] != "ast", "calc.py imports from ast (line %d)" % node.lineno)


kb.main()
