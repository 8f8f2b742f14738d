# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
def topo_order(tasks, deps):
    seen = set()
    for t in tasks:
        if t in seen:
            raise ValueError("task %r is listed twice" % (t,))
        seen.add(t)
    after = {t: set() for t in tasks}
    before = {t: set() for t in tasks}
    for a, b in deps:
        if a not in after or b not in after:
            raise ValueError("pair %r names a task that is not in tasks" % ((a, b),))
        after[a].add(b)
        before[b].add(a)

    WHITE, GREY, BLACK = 0, 1, 2
    colour = dict.fromkeys(tasks, WHITE)
    for root in tasks:
        if colour[root] != WHITE:
            continue
        colour[root] = GREY
        stack = [(root, iter(after[root]))]
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                colour[node] = BLACK
                stack.pop()
            elif colour[nxt] == GREY:
                return None
            elif colour[nxt] == WHITE:
                colour[nxt] = GREY
                stack.append((nxt, iter(after[nxt])))

    waiting = {t: len(before[t]) for t in tasks}
    ready = {t for t in tasks if waiting[t] == 0}
    order = []
    while ready:
        t = min(ready)
        ready.discard(t)
        order.append(t)
        for b in after[t]:
            waiting[b] -= 1
            if waiting[b] == 0:
                ready.add(b)
    return order
