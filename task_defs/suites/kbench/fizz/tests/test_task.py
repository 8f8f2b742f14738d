# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import kbtest as kb

m = kb.load("fizz.py")
fb = kb.func(m, "fizzbuzz")


def expected(n):
    out = []
    for i in range(1, n + 1):
        out.append("FizzBuzz" if i % 15 == 0 else "Fizz" if i % 3 == 0 else "Buzz" if i % 5 == 0 else str(i))
    return out


@kb.case
def first_fifteen():
    kb.eq(fb(15), expected(15), "fizzbuzz(15)")


@kb.case
def long_run_keeps_order():
    kb.eq(fb(100), expected(100), "fizzbuzz(100)")


@kb.case
def empty_for_zero_and_negative():
    kb.eq(fb(0), [], "fizzbuzz(0)")
    kb.eq(fb(-4), [], "fizzbuzz(-4)")


@kb.case
def strings_not_ints():
    kb.ok(all(isinstance(x, str) for x in fb(7)), "every element must be a str")


kb.main()
