# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
from collections import deque


def shortest_path(graph, start, goal):
    for edges in graph.values():
        if any(w < 0 for w in edges.values()):
            raise ValueError("negative weight")
    if start == goal:
        return (0, [start])
    prev = {start: None}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for nxt in graph.get(node, {}):
            if nxt in prev:
                continue
            prev[nxt] = node
            if nxt == goal:
                path, cost = [nxt], 0
                while prev[path[-1]] is not None:
                    cost += graph[prev[path[-1]]][path[-1]]
                    path.append(prev[path[-1]])
                return (cost, path[::-1])
            queue.append(nxt)
    return None
