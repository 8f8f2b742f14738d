# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import random
from collections import OrderedDict

import kbtest as kb

m = kb.load("lru.py")
LRU = getattr(m, "LRUCache", None)
if not isinstance(LRU, type):
    raise kb.Crash("lru.py has no class LRUCache")


# The test's own model of the cache; also the straightforward solution the timed case is measured against.
MODEL = r'''
class Model:
    def __init__(self, capacity):
        self.capacity, self.data = capacity, OrderedDict()

    def get(self, key):
        if key not in self.data:
            return None
        self.data.move_to_end(key)
        return self.data[key]

    def put(self, key, value):
        if key in self.data:
            self.data.move_to_end(key)
        self.data[key] = value
        if len(self.data) > self.capacity:
            self.data.popitem(last=False)

    def keys(self):
        return list(self.data)
'''
exec(MODEL)


@kb.case
def get_and_put_basics():
    c = LRU(3)
    kb.eq(c.get("x"), None, "get of a missing key")
    c.put("a", 1)
    c.put("b", 2)
    kb.eq(c.get("a"), 1, "get('a')")
    kb.eq(c.get("b"), 2, "get('b')")
    kb.eq(c.get("c"), None, "get('c') never stored")
    kb.eq(c.keys(), ["a", "b"], "keys() after get a, get b")
    kb.ok(type(c.keys()) is list, "keys() must return a list")


@kb.case
def evicts_least_recently_used():
    c = LRU(2)
    c.put("a", 1)
    c.put("b", 2)
    kb.eq(c.get("a"), 1, "get('a')")
    kb.eq(c.keys(), ["b", "a"], "keys() after get('a')")
    c.put("c", 3)  # b is now the least recently used
    kb.eq(c.keys(), ["a", "c"], "keys() after put('c')")
    kb.eq(c.get("b"), None, "get('b') after it was evicted")
    kb.eq(c.get("a"), 1, "get('a') survives")
    c.put("d", 4)  # c is the least recently used now
    kb.eq(c.keys(), ["a", "d"], "keys() after put('d')")


@kb.case
def update_replaces_and_never_evicts():
    c = LRU(2)
    c.put("a", 1)
    c.put("b", 2)
    c.put("a", 10)
    kb.eq(c.keys(), ["b", "a"], "keys() after updating a at full capacity")
    kb.eq(c.get("a"), 10, "updated value")
    kb.eq(c.get("b"), 2, "b must not be evicted by an update")
    c.put("c", 3)  # a is the least recently used now
    kb.eq(c.keys(), ["b", "c"], "keys() after put('c')")


@kb.case
def missing_get_changes_nothing_and_capacity_one():
    c = LRU(3)
    for k in ("a", "b", "c"):
        c.put(k, k.upper())
    c.get("zzz")
    kb.eq(c.keys(), ["a", "b", "c"], "keys() after a miss")
    one = LRU(1)
    one.put(1, "x")
    one.put(2, "y")
    kb.eq(one.keys(), [2], "capacity 1 keeps only the newest")
    kb.eq(one.get(1), None, "get(1) evicted")
    one.put(2, "z")
    kb.eq(one.get(2), "z", "capacity 1 update")


@kb.case
def keys_of_different_types_are_different_keys():
    # 1, "1", (1,) and ("1",) are four different keys, even where their text is alike
    c = LRU(4)
    c.put(1, "int")
    c.put("1", "str")
    c.put((1,), "tuple")
    c.put(("1",), "tuple of str")
    kb.eq(c.keys(), [1, "1", (1,), ("1",)], "keys() after four puts")
    kb.ok([type(k) for k in c.keys()] == [int, str, tuple, tuple], "keys() must keep each key as given: %r" % (c.keys(),))
    kb.eq(c.get(1), "int", "get(1)")
    kb.eq(c.get("1"), "str", "get('1')")
    kb.eq(c.get((1,)), "tuple", "get((1,))")
    c.put("(1,)", "text")  # a fifth key: ("1",), the least recently used, goes
    kb.eq(c.keys(), [1, "1", (1,), "(1,)"], "keys() after put('(1,)')")
    kb.eq(c.get(("1",)), None, "get(('1',)) after it was evicted")
    # get returns the very value that was stored, not a copy
    value = object()
    c.put("obj", value)
    kb.ok(c.get("obj") is value, "get('obj') must return the object that was stored")


@kb.case
def bad_capacity_raises():
    kb.raises(ValueError, LRU, 0)
    kb.raises(ValueError, LRU, -5)


@kb.case
def random_operations_match_model():
    rng = random.Random(4242)
    for capacity in (1, 2, 3, 5, 8):
        c, model = LRU(capacity), Model(capacity)
        for step in range(400):
            key = (rng.choice("ab"), rng.randint(0, 6))
            if rng.random() < 0.5:
                kb.eq(c.get(key), model.get(key), "capacity %d step %d get(%r)" % (capacity, step, key))
            else:
                value = rng.randint(0, 1000)
                c.put(key, value)
                model.put(key, value)
            kb.eq(c.keys(), model.keys(), "capacity %d step %d keys()" % (capacity, step))


# The timed workload runs in child interpreters (the agent's cache and the test's own model), measured in CPU time.
WORKLOAD = r'''
def workload(cache):
    rng = random.Random(99)
    hits = total = 0
    for _ in range(200000):
        key = rng.randrange(65000)
        if rng.random() < 0.5:
            got = cache.get(key)
            if got is not None:
                hits += 1
                total += got
        else:
            cache.put(key, rng.randrange(1000))
    return [hits, total, cache.keys()]
'''


RUN = "import random\n" + WORKLOAD + "\nanswer(workload(%s(50000)))"
REFERENCE = kb.reference_code("from collections import OrderedDict\n" + MODEL, RUN % "Model")


@kb.case
def large_workload_costs_what_a_constant_time_cache_costs():
    # 200,000 calls at capacity 50,000: a cache that scans its entries does thousands of times the work of one
    # that does not, so a budget of 10 times the test's own OrderedDict model tells them apart on any machine
    # (a hand-made linked list costs about 1.3 times the model)
    got = kb.within_cost("200,000 get/put calls on a cache of capacity 50,000",
                         kb.agent_code("lru.py", RUN % "mod.LRUCache"), REFERENCE, factor=10).value("the large workload")
    scope = {"random": random}
    exec(WORKLOAD, scope)
    want = scope["workload"](Model(50000))
    kb.eq(got[:2], want[:2], "hits and sum of hit values over the workload")
    kb.ok(got[2] == want[2], "keys() after the workload differ from the expected order")


kb.main()
