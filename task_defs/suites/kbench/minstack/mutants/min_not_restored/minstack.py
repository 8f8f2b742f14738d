# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
class MinStack:
    def __init__(self):
        self.items = []
        self.low = None

    def push(self, x):
        self.items.append(x)
        if self.low is None or x < self.low:
            self.low = x

    def pop(self):
        if not self.items:
            raise IndexError("empty")
        x = self.items.pop()
        if not self.items:
            self.low = None
        return x

    def top(self):
        if not self.items:
            raise IndexError("empty")
        return self.items[-1]

    def get_min(self):
        if not self.items:
            raise IndexError("empty")
        return self.low

    def __len__(self):
        return len(self.items)
