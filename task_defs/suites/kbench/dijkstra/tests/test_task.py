# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import json
import math
import random

import kbtest as kb

m = kb.load("dijkstra.py")
sp = kb.func(m, "shortest_path")


def best_cost(graph, start, goal):
    """The test's own answer: Bellman-Ford style relaxation until nothing changes (weights are >= 0)."""
    if start == goal:
        return 0
    dist = {start: 0}
    changed = True
    while changed:
        changed = False
        for u, edges in graph.items():
            if u not in dist:
                continue
            for v, w in edges.items():
                if v not in dist or dist[u] + w < dist[v] - 1e-12:
                    dist[v] = dist[u] + w
                    changed = True
    return dist.get(goal)


def check_answer(graph, start, goal, got, want_cost, what):
    if want_cost is None:
        kb.eq(got, None, what)
        return
    kb.ok(isinstance(got, tuple) and len(got) == 2, "%s: expected a (cost, path) tuple, got %r" % (what, got))
    cost, path = got
    kb.ok(isinstance(path, list) and path, "%s: path must be a non-empty list, got %r" % (what, path))
    kb.ok(path[0] == start and path[-1] == goal, "%s: path must run from %r to %r, got %r" % (what, start, goal, path))
    total = 0
    for u, v in zip(path, path[1:]):
        kb.ok(u in graph and v in graph[u], "%s: the path uses a missing edge %r -> %r" % (what, u, v))
        total += graph[u][v]
    kb.ok(math.isclose(cost, total, rel_tol=1e-9, abs_tol=1e-9),
          "%s: the reported cost %r is not the sum %r of the path's weights" % (what, cost, total))
    kb.ok(math.isclose(cost, want_cost, rel_tol=1e-9, abs_tol=1e-9),
          "%s: expected cost %r, got %r (path %r)" % (what, want_cost, cost, path))


def check(graph, start, goal):
    what = "shortest_path(%s, %r, %r)" % ("graph" if len(graph) > 6 else repr(graph), start, goal)
    check_answer(graph, start, goal, sp(graph, start, goal), best_cost(graph, start, goal), what)


G1 = {"A": {"B": 4, "C": 1}, "C": {"B": 1, "D": 5}, "B": {"D": 1}, "D": {}}


@kb.case
def small_graphs():
    kb.eq(sp(G1, "A", "D"), (3, ["A", "C", "B", "D"]), "shortest_path(G1, 'A', 'D')")
    kb.eq(sp(G1, "A", "B"), (2, ["A", "C", "B"]), "shortest_path(G1, 'A', 'B')")
    kb.eq(sp(G1, "C", "D"), (2, ["C", "B", "D"]), "shortest_path(G1, 'C', 'D')")
    g = {1: {2: 7, 3: 9, 6: 14}, 2: {1: 7, 3: 10, 4: 15}, 3: {1: 9, 2: 10, 4: 11, 6: 2},
         4: {2: 15, 3: 11, 5: 6}, 5: {4: 6, 6: 9}, 6: {1: 14, 3: 2, 5: 9}}
    kb.eq(sp(g, 1, 5), (20, [1, 3, 6, 5]), "shortest_path(g, 1, 5)")
    kb.eq(sp(g, 1, 4), (20, [1, 3, 4]), "shortest_path(g, 1, 4)")
    fl = {"s": {"a": 0.5, "b": 2.25}, "a": {"b": 0.25, "t": 3.0}, "b": {"t": 0.5}}
    got = sp(fl, "s", "t")
    kb.ok(isinstance(got, tuple) and got[1] == ["s", "a", "b", "t"] and math.isclose(got[0], 1.25),
          "shortest_path(fl, 's', 't'): expected (1.25, ['s', 'a', 'b', 't']), got %r" % (got,))


@kb.case
def start_equals_goal():
    kb.eq(sp(G1, "A", "A"), (0, ["A"]), "shortest_path(G1, 'A', 'A')")
    kb.eq(sp({"x": {"x": 3}}, "x", "x"), (0, ["x"]), "shortest_path with a self-loop")
    kb.eq(sp({}, "nowhere", "nowhere"), (0, ["nowhere"]), "start == goal not in graph")


@kb.case
def unreachable_gives_none():
    kb.eq(sp(G1, "D", "A"), None, "edges are directed: D cannot reach A")
    kb.eq(sp(G1, "A", "Z"), None, "goal not in graph")
    kb.eq(sp(G1, "Z", "A"), None, "start not in graph")
    kb.eq(sp({"a": {"b": 1}, "c": {"d": 1}}, "a", "d"), None, "two separate components")
    kb.eq(sp({}, "a", "b"), None, "empty graph")


@kb.case
def neighbour_only_nodes_and_zero_weights():
    g = {"a": {"b": 0, "c": 5}, "b": {"c": 0}}  # c never appears as a key
    kb.eq(sp(g, "a", "c"), (0, ["a", "b", "c"]), "shortest_path(g, 'a', 'c') with zero weights")
    kb.eq(sp(g, "c", "a"), None, "c has no outgoing edges")


@kb.case
def nodes_of_mixed_types():
    # ints, strings and a tuple in one graph, reached at equal costs: nothing may compare two nodes
    g = {"s": {1: 2, "a": 2, (0, 1): 2}, 1: {"t": 1}, "a": {"t": 1}, (0, 1): {"t": 1}}
    check(g, "s", "t")
    g2 = {0: {"x": 1, 2: 1}, "x": {3: 1}, 2: {3: 1}, 3: {"end": 0, 4: 0}, 4: {"end": 0}}
    check(g2, 0, "end")
    kb.eq(sp(g2, "x", 2), None, "shortest_path(g2, 'x', 2)")


@kb.case
def negative_weight_raises():
    kb.raises(ValueError, sp, {"a": {"b": -1}}, "a", "b")
    kb.raises(ValueError, sp, {"a": {"b": 1}, "x": {"y": -0.5}}, "a", "b")  # the bad edge is unreachable
    kb.raises(ValueError, sp, {"a": {"b": 2}, "b": {"a": -3}}, "b", "a")


@kb.case
def random_graphs():
    rng = random.Random(60221)
    for trial in range(40):
        n = rng.randint(2, 40)
        nodes = list(range(n)) if trial % 2 else ["v%d" % i for i in range(n)]
        graph = {}
        for _ in range(rng.randint(0, 4 * n)):
            u, v = rng.choice(nodes), rng.choice(nodes)
            w = rng.randint(0, 20) if trial % 3 else round(rng.uniform(0, 10), 3)
            graph.setdefault(u, {})[v] = w
        for _ in range(5):
            check(graph, rng.choice(nodes), rng.choice(nodes))


BIG = r'''
import random
def big_graph(seed):
    rng = random.Random(seed)
    n = 10000
    graph = {}
    for u in range(n):
        graph["n%d" % u] = {}
    for _ in range(50000):
        u, v = rng.randrange(n), rng.randrange(n)
        graph["n%d" % u]["n%d" % v] = rng.randint(1, 1000) + rng.random()
    return graph
'''
# The test's own Dijkstra with a binary heap: the cost the timed case measures the agent's code against.
OWN = r'''
import heapq
def own_cost(graph, start, goal):
    dist, heap = {start: 0}, [(0, start)]
    while heap:
        d, u = heapq.heappop(heap)
        if u == goal:
            return d
        if d > dist[u]:
            continue
        for v, w in graph.get(u, {}).items():
            if v not in dist or d + w < dist[v]:
                dist[v] = d + w
                heapq.heappush(heap, (d + w, v))
    return dist.get(goal)
'''
exec(OWN)
CALLS = [(1, "n0", "n9999"), (2, "n17", "n4242"), (3, "n5", "n6")]
RUN = "answer([%s(big_graph(seed), start, goal) for seed, start, goal in cases])"


@kb.case
def large_graphs_within_budget():
    # building the three graphs (most of the cost) is the same work for both runs; a search that scans every node
    # for the next one does ~10,000 times more work per step than a heap, so 5 times the test's own cost is room
    # enough for a slower sound search and none for a scan
    got = kb.within_cost("three searches on graphs of 10,000 nodes and 50,000 edges",
                         kb.agent_code("dijkstra.py", BIG + RUN % "mod.shortest_path"),
                         kb.reference_code(BIG + OWN, RUN % "own_cost"), stdin=json.dumps(CALLS),
                         factor=5).value("the large searches")
    scope = {}
    exec(BIG, scope)
    for (seed, start, goal), answer in zip(CALLS, got):
        graph = scope["big_graph"](seed)
        answer = tuple(answer) if isinstance(answer, list) and len(answer) == 2 else answer
        check_answer(graph, start, goal, answer, own_cost(graph, start, goal),
                     "shortest_path(big graph %d, %r, %r)" % (seed, start, goal))


kb.main()
