# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""A least-recently-used cache on top of OrderedDict (oldest entry first)."""

import copy
from collections import OrderedDict


class LRUCache:
    def __init__(self, capacity):
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self.capacity = capacity
        self._data = OrderedDict()

    def get(self, key):
        if key not in self._data:
            return None
        self._data.move_to_end(key)
        return self._data[key]

    def put(self, key, value):
        if key in self._data:
            self._data.move_to_end(key)
        self._data[key] = copy.deepcopy(value)  # later changes by the caller never reach the cache
        if len(self._data) > self.capacity:
            self._data.popitem(last=False)

    def keys(self):
        return list(self._data)
