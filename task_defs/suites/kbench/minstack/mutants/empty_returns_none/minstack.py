# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
class MinStack:
    def __init__(self):
        self.items = []  # (value, minimum so far)

    def push(self, x):
        low = x if not self.items or x < self.items[-1][1] else self.items[-1][1]
        self.items.append((x, low))

    def pop(self):
        return self.items.pop()[0] if self.items else None

    def top(self):
        return self.items[-1][0] if self.items else None

    def get_min(self):
        return self.items[-1][1] if self.items else None

    def __len__(self):
        return len(self.items)
