# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Kahn's algorithm with a min-heap: always emit the smallest task whose predecessors are all done."""

import heapq


def topo_order(tasks, deps):
    names = list(tasks)
    if len(set(names)) != len(names):
        raise ValueError("tasks contains a duplicate name")
    known = set(names)
    successors = {name: set() for name in names}
    indegree = dict.fromkeys(names, 0)
    for before, after in deps:
        if before not in known or after not in known:
            raise ValueError("dependency (%r, %r) names an unknown task" % (before, after))
        if after not in successors[before]:
            successors[before].add(after)
            indegree[after] += 1
    ready = [name for name in names if indegree[name] == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        name = heapq.heappop(ready)
        order.append(name)
        for nxt in successors[name]:
            indegree[nxt] -= 1
            if indegree[nxt] == 0:
                heapq.heappush(ready, nxt)
    return order if len(order) == len(names) else None
