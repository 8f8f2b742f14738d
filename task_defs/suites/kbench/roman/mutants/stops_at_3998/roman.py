# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import re

_TABLE = [(1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"), (50, "L"), (40, "XL"),
          (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]


def to_roman(n):
    if type(n) is not int or not 1 <= n < 3999:
        raise ValueError("need an int from 1 to 3998, got %r" % (n,))
    out = ""
    for value, symbol in _TABLE:
        while n >= value:
            out += symbol
            n -= value
    return out

_CANON = re.compile(r"M{0,3}(CM|CD|D?C{0,3})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})")
_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}


def _value(s):
    total = 0
    for i, ch in enumerate(s):
        v = _VALUES[ch]
        if i + 1 < len(s) and _VALUES[s[i + 1]] > v:
            total -= v
        else:
            total += v
    return total


def from_roman(s):
    if not isinstance(s, str) or not s or not _CANON.fullmatch(s):
        raise ValueError("not a canonical Roman numeral: %r" % (s,))
    return _value(s)
