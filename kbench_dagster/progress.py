"""A small progress bar on stderr for long work (tasks done / total, passes, ETA)."""

from __future__ import annotations

import sys
import time


class Progress:
    def __init__(self, total: int, label: str, stream=None):
        self.total, self.label, self.done, self.good = total, label, 0, 0
        self.stream = stream or sys.stderr
        self.start = time.monotonic()
        self.tty = self.stream.isatty()

    def step(self, good: bool) -> None:
        self.done += 1
        self.good += int(good)
        elapsed = time.monotonic() - self.start
        eta = elapsed / self.done * (self.total - self.done)
        width = 24
        filled = int(width * self.done / max(self.total, 1))
        bar = "#" * filled + "-" * (width - filled)
        text = f"{self.label} [{bar}] {self.done}/{self.total} ok {self.good} eta {eta:4.0f}s"
        if self.tty:
            self.stream.write("\r" + text + ("\n" if self.done == self.total else ""))
        elif self.done == self.total or self.done % 10 == 0:
            self.stream.write(text + "\n")
        self.stream.flush()
