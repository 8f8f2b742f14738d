# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
class LRUCache:
    def __init__(self, capacity):
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self.capacity = capacity
        self.values = {}
        self.order = []

    def _touch(self, key):
        if key in self.values:
            self.order.remove(key)
        self.order.append(key)

    def get(self, key):
        if key not in self.values:
            return None
        self._touch(key)
        return self.values[key]

    def put(self, key, value):
        self._touch(key)
        self.values[key] = value
        if len(self.values) > self.capacity:
            del self.values[self.order.pop(0)]

    def keys(self):
        return list(self.order)
