"""The generator's random numbers: its own xorshift64*, so a seed makes the same files on any Python version."""

from __future__ import annotations

from typing import Any

_MASK = (1 << 64) - 1


class Rng:
    """xorshift64* (Vigna 2014). Our own, because `random`'s algorithms and seeding may change between Python
    versions and the files must stay byte-identical for a seed."""

    def __init__(self, seed: int):
        self._s = ((seed + 1) * 0x9E3779B97F4A7C15) & _MASK or 1
        for _ in range(8):  # small seeds start in a sparse state; a few rounds mix it
            self.next()

    def next(self) -> int:
        x = self._s
        x ^= x >> 12
        x ^= (x << 25) & _MASK
        x ^= x >> 27
        self._s = x
        return (x * 0x2545F4914F6CDD1D) & _MASK

    def below(self, n: int) -> int:
        return (self.next() >> 11) % n

    def between(self, lo: int, hi: int) -> int:
        return lo + self.below(hi - lo + 1)

    def chance(self, p: float) -> bool:
        return (self.next() >> 11) / float(1 << 53) < p

    def pick(self, seq):
        return seq[self.below(len(seq))]

    def weighted(self, weights: dict) -> Any:
        keys = list(weights)
        r = self.below(sum(weights.values()))
        for k in keys:
            r -= weights[k]
            if r < 0:
                return k
        return keys[-1]  # pragma: no cover - r < total always lands above

    def shuffled(self, seq) -> list:
        items = list(seq)
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]
        return items

    def sample(self, seq, k: int) -> list:
        return self.shuffled(seq)[:k]
