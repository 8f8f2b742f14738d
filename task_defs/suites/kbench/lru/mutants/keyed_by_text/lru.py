# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
from collections import OrderedDict


class LRUCache:
    """Entries are filed under the key's text, so any key works, hashable or not."""

    def __init__(self, capacity):
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self.capacity = capacity
        self._data = OrderedDict()  # str(key) -> (key, value)

    def get(self, key):
        slot = str(key)
        if slot not in self._data:
            return None
        self._data.move_to_end(slot)
        return self._data[slot][1]

    def put(self, key, value):
        slot = str(key)
        if slot in self._data:
            self._data.move_to_end(slot)
        self._data[slot] = (key, value)
        if len(self._data) > self.capacity:
            self._data.popitem(last=False)

    def keys(self):
        return [key for key, _ in self._data.values()]
