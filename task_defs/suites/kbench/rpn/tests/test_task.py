# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import numbers

import kbtest as kb

m = kb.load("rpn.py")
rpn = kb.func(m, "eval_rpn")


def check(text, want):
    try:
        got = rpn(text)
    except (ValueError, ArithmeticError, TypeError, LookupError) as exc:
        # an error on a well-formed expression is a wrong answer
        raise AssertionError("eval_rpn(%r): expected %r, got %s: %s" % (text, want, type(exc).__name__, exc)) from None
    kb.ok(isinstance(got, numbers.Real) and not isinstance(got, bool),
          "eval_rpn(%r) must return an int or float, got %r" % (text, got))
    kb.ok(abs(got - want) < 1e-9, "eval_rpn(%r): expected %r, got %r" % (text, want, got))


@kb.case
def basic_expressions():
    check("3 4 +", 7)
    check("2 3 4 * +", 14)
    check("5 1 2 + 4 * + 3 -", 14)
    check("6 2 * 3 +", 15)
    check("42", 42)


@kb.case
def operand_order():
    check("10 4 -", 6)
    check("4 10 -", -6)
    check("10 4 /", 2.5)
    check("2 8 /", 0.25)
    check("1 2 3 - -", 2)


@kb.case
def true_division():
    check("7 2 /", 3.5)
    check("1 3 /", 1 / 3)
    check("9 3 /", 3)


@kb.case
def negative_and_decimal_numbers():
    check("-3 2 *", -6)
    check("1.5 2 *", 3.0)
    check("-0.75 0.25 +", -0.5)
    check("5 -2 -", 7)


@kb.case
def extra_whitespace():
    check("  3   4  + ", 7)
    check("\t2\t3 *\n", 6)


@kb.case
def malformed_raises_value_error():
    for text in ["", "   ", "+", "3 +", "3 4", "1 2 3 +", "3 4 ^", "3 x +", "2 3a +", "- 3", "* 1 2"]:
        kb.raises(ValueError, rpn, text)


@kb.case
def division_by_zero():
    kb.raises(ZeroDivisionError, rpn, "1 0 /")
    kb.raises(ZeroDivisionError, rpn, "4 2 2 - /")
    kb.raises(ZeroDivisionError, rpn, "3.5 0.0 /")


@kb.case
def strict_number_syntax():
    check("007 -0 +", 7)
    check("-0.50 2.25 *", -1.125)
    for tok in ["+3", "1.", ".5", "-.5", "1e3", "2E-1", "inf", "-inf", "nan", "Infinity", "1_000", "0x10", "1,5",
                "2.5.1", "--2", "-+2", "\u0663", "1\u0663", "\uff15", "\u00bd"]:
        for text in [tok, "1 %s +" % tok]:
            try:
                kb.raises(ValueError, rpn, text)
            except AssertionError as exc:
                raise AssertionError("eval_rpn(%r), %r is not a number: %s" % (text, tok, exc)) from None


kb.main()
