# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
def shortest_path(graph, start, goal):
    for edges in graph.values():
        if any(w < 0 for w in edges.values()):
            raise ValueError("negative weight")
    if start == goal:
        return (0, [start])
    dist, prev, done = {start: 0}, {}, set()
    while True:
        todo = [(d, n) for n, d in dist.items() if n not in done]
        if not todo:
            return None
        d, node = min(todo, key=lambda x: x[0])
        if node == goal:
            path = [node]
            while node in prev:
                node = prev[node]
                path.append(node)
            return (d, path[::-1])
        done.add(node)
        for nxt, w in graph.get(node, {}).items():
            if nxt not in dist or d + w < dist[nxt]:
                dist[nxt] = d + w
                prev[nxt] = node
