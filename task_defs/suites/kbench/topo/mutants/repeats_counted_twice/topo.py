# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import heapq
from collections import deque


def topo_order(tasks, deps):
    if len(set(tasks)) != len(tasks):
        raise ValueError("duplicate task")
    known = set(tasks)
    for a, b in deps:
        if a not in known or b not in known:
            raise ValueError("unknown task in %r" % ((a, b),))
    succ = {t: set() for t in tasks}
    indeg = dict.fromkeys(tasks, 0)
    for a, b in deps:
        succ[a].add(b)
        indeg[b] += 1
    ready = [t for t in tasks if indeg[t] == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        t = heapq.heappop(ready)
        order.append(t)
        for n in succ[t]:
            indeg[n] -= 1
            if indeg[n] == 0:
                heapq.heappush(ready, n)
    return order if len(order) == len(tasks) else None
