"""A small progress bar on stderr for long work (tasks done / total, passes, ETA)."""

from __future__ import annotations

import sys
import time

REDRAW_S = 0.1


class Progress:
    def __init__(self, total: int, label: str, stream=None):
        self.total, self.label, self.done, self.good = total, label, 0, 0
        self.stream = stream or sys.stderr
        self.start = time.monotonic()
        self.tty = self.stream.isatty()
        self._drawn = float("-inf")

    def step(self, good: bool) -> None:
        self.done += 1
        self.good += int(good)
        now = time.monotonic()
        last = self.done == self.total
        # a strike answered from the cache finishes a thousand attempts a second: a terminal is redrawn ten times a
        # second at most, a log gets a line every ten
        if not last and (now - self._drawn < REDRAW_S if self.tty else self.done % 10):
            return
        self._drawn = now
        eta = (now - self.start) / self.done * (self.total - self.done)
        width = 24
        filled = int(width * self.done / max(self.total, 1))
        bar = "#" * filled + "-" * (width - filled)
        text = f"{self.label} [{bar}] {self.done}/{self.total} ok {self.good} eta {eta:4.0f}s"
        self.stream.write(("\r" + text + ("\n" if last else "")) if self.tty else text + "\n")
        self.stream.flush()
