# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
from collections import OrderedDict


class LRUCache:
    def __init__(self, capacity):
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self.capacity = capacity
        self.data = OrderedDict()

    def get(self, key):
        if key not in self.data:
            return None
        self.data.move_to_end(key)
        return self.data[key]

    def put(self, key, value):
        if key not in self.data and len(self.data) >= self.capacity:
            self.data.popitem(last=True)
        self.data[key] = value
        self.data.move_to_end(key)

    def keys(self):
        return list(self.data)
