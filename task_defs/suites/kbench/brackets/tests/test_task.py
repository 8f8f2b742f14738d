# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import kbtest as kb

m = kb.load("brackets.py")
balanced = kb.func(m, "balanced")


def check(s, want):
    got = balanced(s)
    kb.ok(isinstance(got, bool), "balanced(%r) must return a bool, got %r" % (s[:60], got))
    kb.eq(got, want, "balanced(%r)" % (s[:60],))


@kb.case
def simple_balanced():
    for s in ["()", "[]", "{}", "()[]{}", "([]{})", "{[()()]}", "((()))", "[{}]([])"]:
        check(s, True)


@kb.case
def other_characters_ignored():
    check("a(b)c[d]{e}f", True)
    check("def f(x): return [x, {1: 2}]", True)
    check("<(>)", True)
    check("hello world 123", True)
    check("x(y", False)
    check("if (a[0] > b) }", False)


@kb.case
def empty_string():
    check("", True)


@kb.case
def wrong_kind_or_crossed():
    for s in ["(]", "[)", "{)", "([)]", "{(})", "[(])", "({[}])"]:
        check(s, False)


@kb.case
def unclosed_or_extra_closers():
    for s in ["(", "[[", "{{}", "(()", "())", ")", "]", ")(", "}{", "[]]", "()(", "a)b(c"]:
        check(s, False)


@kb.case
def deep_nesting_and_long_input():
    deep = "([{" * 15000 + "}])" * 15000
    check(deep, True)
    check(deep[:-1], False)
    check(deep + "(", False)
    check("()" * 50000, True)
    check("()" * 49999 + ")(", False)


kb.main()
