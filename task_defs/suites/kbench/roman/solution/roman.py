# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Canonical Roman numerals for 1..3999, both directions, rejecting every other spelling."""

_TABLE = [
    (1000, "M"), (900, "CM"), (500, "D"), (400, "CD"),
    (100, "C"), (90, "XC"), (50, "L"), (40, "XL"),
    (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"),
]


def to_roman(n):
    if type(n) is not int or not 1 <= n <= 3999:
        raise ValueError("to_roman needs an int from 1 to 3999, got %r" % (n,))
    parts = []
    for value, symbol in _TABLE:
        count, n = divmod(n, value)
        parts.append(symbol * count)
    return "".join(parts)


_FROM = {to_roman(i): i for i in range(1, 4000)}


def from_roman(s):
    if not isinstance(s, str) or s not in _FROM:
        raise ValueError("not a canonical Roman numeral: %r" % (s,))
    return _FROM[s]
