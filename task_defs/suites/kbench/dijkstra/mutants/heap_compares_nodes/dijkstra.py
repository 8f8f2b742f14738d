# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import heapq


def shortest_path(graph, start, goal):
    for edges in graph.values():
        for weight in edges.values():
            if weight < 0:
                raise ValueError("negative edge weight %r" % (weight,))
    if start == goal:
        return (0, [start])
    dist = {start: 0}
    prev = {}
    done = set()
    heap = [(0, start)]
    while heap:
        d, node = heapq.heappop(heap)
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
            nd = d + weight
            if nxt not in dist or nd < dist[nxt]:
                dist[nxt] = nd
                prev[nxt] = node
                heapq.heappush(heap, (nd, nxt))
    return None
