# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
_SYMBOLS = [("I", "V", "X"), ("X", "L", "C"), ("C", "D", "M"), ("M", "", "")]
_DIGIT = ["", "a", "aa", "aaa", "ab", "b", "ba", "baa", "baaa", "ac"]
_VALUE = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}


def to_roman(n):
    if isinstance(n, bool) or not isinstance(n, int) or n < 1 or n > 3999:
        raise ValueError("to_roman: %r is not an int in 1..3999" % (n,))
    parts = []
    for place, (one, five, ten) in enumerate(_SYMBOLS):
        digit = n // 10 ** place % 10
        pattern = _DIGIT[digit]
        parts.append(pattern.replace("a", one).replace("b", five).replace("c", ten))
    return "".join(reversed(parts))


def from_roman(s):
    if type(s) is not str or not s or any(ch not in _VALUE for ch in s):
        raise ValueError("from_roman: %r is not a Roman numeral" % (s,))
    total = 0
    for here, after in zip(s, s[1:] + " "):
        value = _VALUE[here]
        total += -value if after != " " and _VALUE[after] > value else value
    if not 1 <= total <= 3999 or to_roman(total) != s:
        raise ValueError("from_roman: %r is not in canonical form" % (s,))
    return total
