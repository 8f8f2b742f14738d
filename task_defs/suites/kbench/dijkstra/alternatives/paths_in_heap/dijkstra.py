# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import heapq
from itertools import count


def shortest_path(graph, start, goal):
    if any(w < 0 for edges in graph.values() for w in edges.values()):
        raise ValueError("shortest_path needs non-negative weights")
    if start == goal:
        return (0, [start])
    order = count()
    frontier = [(0, next(order), start, (start,))]
    settled = set()
    while frontier:
        cost, _, node, path = heapq.heappop(frontier)
        if node == goal:
            return (cost, list(path))
        if node in settled:
            continue
        settled.add(node)
        for nxt, w in graph.get(node, {}).items():
            if nxt not in settled:
                heapq.heappush(frontier, (cost + w, next(order), nxt, path + (nxt,)))
    return None
