# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import random

import kbtest as kb

m = kb.load("minstack.py")
MinStack = getattr(m, "MinStack", None)
if not isinstance(MinStack, type):
    raise kb.Crash("minstack.py has no class MinStack")


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


# The timed workload runs in child interpreters, the agent's stack and the test's own, measured in CPU time.
OWN = r'''
class OwnStack:
    def __init__(self):
        self.items, self.mins = [], []

    def push(self, x):
        self.items.append(x)
        if not self.mins or x <= self.mins[-1]:
            self.mins.append(x)

    def pop(self):
        x = self.items.pop()
        if x == self.mins[-1]:
            self.mins.pop()
        return x

    def top(self):
        return self.items[-1]

    def get_min(self):
        return self.mins[-1]

    def __len__(self):
        return len(self.items)
'''
WORKLOAD = r'''
def workload(make, n=100000):
    s = make()
    checks = 0
    # descending pushes: every new element is the minimum, so each pop removes the current minimum
    for i in range(n):
        s.push(n - i)
        checks += s.get_min()
    for i in range(n):
        checks += s.get_min() + s.top() + len(s)
    popped_wrong = 0
    for i in range(n):
        if s.pop() != i + 1:
            popped_wrong += 1
        if len(s):
            checks += s.get_min()
    return [checks, popped_wrong, len(s)]
'''
RUN = WORKLOAD + "\nanswer(workload(%s))"


@kb.case
def constant_time_with_many_elements():
    # 100,000 elements, get_min after every operation: a stack that scans for the minimum does ~10^4 times the
    # work of one that keeps it, so 10 times the test's own stack tells them apart on any machine
    got = kb.within_cost("pushing, querying and popping 100,000 elements", kb.agent_code("minstack.py", RUN % "mod.MinStack"),
                         kb.reference_code(OWN, RUN % "OwnStack"), factor=10).value("the timed workload")
    scope = {}
    exec(OWN + WORKLOAD, scope)
    kb.eq(got, scope["workload"](scope["OwnStack"]), "[sum of every get_min, top and len, wrong pops, len at the end]")


kb.main()
