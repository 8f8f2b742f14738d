# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
class MinStack:
    def __init__(self):
        self.values = []
        self.minimums = []

    def push(self, x):
        self.values.append(x)
        if not self.minimums or x <= self.minimums[-1]:
            self.minimums.append(x)

    def _need(self):
        if not self.values:
            raise IndexError("the stack is empty")

    def pop(self):
        self._need()
        x = self.values.pop()
        if x == self.minimums[-1]:
            self.minimums.pop()
        return x

    def top(self):
        self._need()
        return self.values[-1]

    def get_min(self):
        self._need()
        return self.minimums[-1]

    def __len__(self):
        return len(self.values)
