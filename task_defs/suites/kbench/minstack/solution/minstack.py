# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
class MinStack:
    """Each entry keeps the minimum of itself and everything below it."""

    def __init__(self):
        self._items = []  # (value, minimum so far)

    def push(self, x):
        low = x if not self._items or x < self._items[-1][1] else self._items[-1][1]
        self._items.append((x, low))

    def pop(self):
        if not self._items:
            raise IndexError("pop from an empty MinStack")
        return self._items.pop()[0]

    def top(self):
        if not self._items:
            raise IndexError("top of an empty MinStack")
        return self._items[-1][0]

    def get_min(self):
        if not self._items:
            raise IndexError("get_min of an empty MinStack")
        return self._items[-1][1]

    def __len__(self):
        return len(self._items)
