# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import random
import time

import kbtest as kb

m = kb.load("minstack.py")
MinStack = getattr(m, "MinStack", None)
if not isinstance(MinStack, type):
    raise kb.Crash("minstack.py has no class MinStack")

BUDGET_S = 12.0


@kb.case
def basic_sequence():
    s = MinStack()
    kb.eq(len(s), 0, "len of a new stack")
    s.push(5)
    s.push(3)
    s.push(7)
    kb.eq(len(s), 3, "len after three pushes")
    kb.eq(s.top(), 7, "top")
    kb.eq(s.get_min(), 3, "get_min")
    kb.eq(s.pop(), 7, "pop")
    kb.eq(s.get_min(), 3, "get_min after pop")
    kb.eq(s.pop(), 3, "pop")
    kb.eq(s.get_min(), 5, "get_min once 3 is gone")
    kb.eq(s.top(), 5, "top")
    kb.eq(len(s), 1, "len")


@kb.case
def duplicate_minimums():
    s = MinStack()
    for x in [4, 2, 2, 6, 2, 9]:
        s.push(x)
    kb.eq(s.get_min(), 2, "get_min with three 2s")
    kb.eq(s.pop(), 9, "pop")
    kb.eq(s.pop(), 2, "pop")
    kb.eq(s.get_min(), 2, "get_min after popping one 2")
    kb.eq(s.pop(), 6, "pop")
    kb.eq(s.pop(), 2, "pop")
    kb.eq(s.get_min(), 2, "get_min after popping two 2s")
    kb.eq(s.pop(), 2, "pop")
    kb.eq(s.get_min(), 4, "get_min after popping every 2")


@kb.case
def negative_and_float_values():
    s = MinStack()
    for x in [0, -1.5, 3, -7, 2.25]:
        s.push(x)
    kb.eq(s.get_min(), -7, "get_min")
    s.pop()
    s.pop()
    kb.eq(s.get_min(), -1.5, "get_min")
    kb.eq(s.top(), 3, "top")


@kb.case
def empty_stack_raises():
    s = MinStack()
    kb.raises(IndexError, s.pop)
    kb.raises(IndexError, s.top)
    kb.raises(IndexError, s.get_min)
    s.push(1)
    kb.eq(s.pop(), 1, "pop")
    kb.eq(len(s), 0, "len after emptying")
    kb.raises(IndexError, s.pop)
    kb.raises(IndexError, s.top)
    kb.raises(IndexError, s.get_min)


@kb.case
def random_operations_match_a_list():
    rng = random.Random(7)
    s = MinStack()
    model = []
    for step in range(20000):
        if model and rng.random() < 0.45:
            kb.eq(s.pop(), model.pop(), "pop at step %d" % step)
        else:
            x = rng.randint(-30, 30)
            s.push(x)
            model.append(x)
        kb.eq(len(s), len(model), "len at step %d" % step)
        if model:
            kb.eq(s.top(), model[-1], "top at step %d" % step)
            kb.eq(s.get_min(), min(model), "get_min at step %d" % step)


def timed(label, start):
    if time.perf_counter() - start > BUDGET_S:
        raise AssertionError("%s: over the %.0fs budget; some operation is not constant time" % (label, BUDGET_S))


@kb.case
def constant_time_with_many_elements():
    n = 100000
    start = time.perf_counter()
    s = MinStack()
    # descending pushes: every new element is the minimum, so each pop removes the current minimum
    for i in range(n):
        s.push(n - i)
        s.get_min()
        if i % 1000 == 0:
            timed("pushing", start)
    kb.eq(s.get_min(), 1, "get_min")
    for i in range(n):
        s.get_min()
        s.top()
        len(s)
        if i % 1000 == 0:
            timed("get_min on a full stack", start)
    for i in range(n):
        got = s.pop()
        if i % 1000 == 0:
            timed("popping", start)
            kb.eq(got, i + 1, "pop number %d" % (i + 1))
        if len(s):
            s.get_min()
    timed("the whole run", start)
    kb.eq(len(s), 0, "len after popping everything")


kb.main()
