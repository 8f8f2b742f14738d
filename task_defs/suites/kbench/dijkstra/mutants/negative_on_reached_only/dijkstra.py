# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Dijkstra's algorithm with a binary heap; a counter breaks ties so nodes never get compared."""

import heapq
import itertools


def shortest_path(graph, start, goal):
    if start == goal:
        return (0, [start])
    tie = itertools.count()
    dist = {start: 0}
    prev = {}
    done = set()
    heap = [(0, next(tie), start)]
    while heap:
        d, _, node = heapq.heappop(heap)
        if node in done:
            continue
        done.add(node)
        if node == goal:
            path = [node]
            while node in prev:
                node = prev[node]
                path.append(node)
            return (d, path[::-1])
        for nxt, weight in graph.get(node, {}).items():
            if weight < 0:
                raise ValueError("negative edge weight %r" % (weight,))
            nd = d + weight
            if nxt not in dist or nd < dist[nxt]:
                dist[nxt] = nd
                prev[nxt] = node
                heapq.heappush(heap, (nd, next(tie), nxt))
    return None
