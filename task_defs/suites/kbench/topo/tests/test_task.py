# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import heapq
import random

import kbtest as kb

m = kb.load("topo.py")
topo = kb.func(m, "topo_order")


def smallest_order(tasks, deps):
    """The test's own answer: Kahn's algorithm taking the smallest ready task each time."""
    succ = {t: set() for t in tasks}
    indeg = dict.fromkeys(tasks, 0)
    for a, b in set(deps):
        succ[a].add(b)
        indeg[b] += 1
    ready = [t for t in tasks if indeg[t] == 0]
    heapq.heapify(ready)
    out = []
    while ready:
        t = heapq.heappop(ready)
        out.append(t)
        for n in succ[t]:
            indeg[n] -= 1
            if indeg[n] == 0:
                heapq.heappush(ready, n)
    return out if len(out) == len(tasks) else None


def check(tasks, deps, want):
    got = topo(list(tasks), list(deps))
    if len(tasks) < 12 or got == want:
        kb.eq(got, want, "topo_order(%r, %r)" % (tasks, deps))
        return
    if not isinstance(got, list) or want is None:
        raise AssertionError("topo_order on %d tasks: expected %s, got %r" % (
            len(tasks), "None" if want is None else "a list", got if not isinstance(got, list) else "a list"))
    at = next((i for i, (g, w) in enumerate(zip(got, want)) if g != w), min(len(got), len(want)))
    raise AssertionError("topo_order on %d tasks: first difference at position %d: expected %r, got %r" % (
        len(tasks), at, want[at:at + 3], got[at:at + 3]))


def raises_for(exc_types, fn, *args):
    """kb.raises, naming the call in the failure message."""
    try:
        kb.raises(exc_types, fn, *args)
    except AssertionError as exc:
        raise AssertionError("%s(%s): %s" % (getattr(fn, "__name__", "call"), ", ".join(repr(a) for a in args), exc)) from None


@kb.case
def small_orders():
    check(["c", "b", "a"], [], ["a", "b", "c"])
    check(["c", "b", "a"], [("c", "a")], ["b", "c", "a"])
    check(["x1", "x2", "x3"], [("x3", "x1")], ["x2", "x3", "x1"])
    check(["wash", "dry", "fold"], [("wash", "dry"), ("dry", "fold")], ["wash", "dry", "fold"])
    check(["d", "c", "b", "a"], [("d", "a"), ("c", "a"), ("b", "a")], ["b", "c", "d", "a"])
    check(["only"], [], ["only"])
    check([], [], [])


@kb.case
def python_string_order():
    check(["b", "a", "B", "A"], [], ["A", "B", "a", "b"])
    check(["t2", "t10", "t1"], [], ["t1", "t10", "t2"])
    check(["t2", "t10", "t1"], [("t2", "t10")], ["t1", "t2", "t10"])


@kb.case
def repeated_pairs_are_fine():
    check(["a", "b", "c"], [("b", "a"), ("b", "a"), ("c", "a"), ("b", "a")], ["b", "c", "a"])


@kb.case
def cycles_give_none():
    check(["a", "b"], [("a", "b"), ("b", "a")], None)
    check(["a", "b", "c"], [("a", "a")], None)
    check(["a", "b", "c", "d"], [("a", "b"), ("b", "c"), ("c", "d"), ("d", "b")], None)
    check(["a", "b", "c", "x", "y"], [("x", "y"), ("a", "b"), ("b", "c"), ("c", "a")], None)


@kb.case
def bad_input_raises():
    raises_for(ValueError, topo, ["a", "b", "a"], [])
    raises_for(ValueError, topo, ["a", "b"], [("a", "z")])
    raises_for(ValueError, topo, ["a", "b"], [("q", "b")])


@kb.case
def random_dags():
    rng = random.Random(31337)
    for trial in range(60):
        n = rng.randint(1, 25)
        names = ["n%d" % i for i in rng.sample(range(100), n)]
        rank = names[:]
        rng.shuffle(rank)  # a hidden valid order, so the graph has no cycle
        deps = []
        for _ in range(rng.randint(0, 2 * n)):
            i, j = sorted(rng.sample(range(n), 2)) if n > 1 else (0, 0)
            if i != j:
                deps.append((rank[i], rank[j]))
        check(names, deps, smallest_order(names, deps))
        if len(deps) > 0 and trial % 3 == 0:
            a, b = rng.choice(deps)
            cyclic = deps + [(b, a)]
            check(names, cyclic, None)


@kb.case
def large_graph():
    rng = random.Random(5)
    n = 3000
    names = ["job%04d" % i for i in range(n)]
    rank = names[:]
    rng.shuffle(rank)
    deps = []
    for _ in range(15000):
        i, j = sorted(rng.sample(range(n), 2))
        deps.append((rank[i], rank[j]))
    shuffled = names[:]
    rng.shuffle(shuffled)
    check(shuffled, deps, smallest_order(shuffled, deps))


kb.main()
