# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Schoolbook multiplication of decimal strings, least significant digit first."""

_DIGITS = "0123456789"


def _parse(text):
    if not isinstance(text, str):
        raise ValueError("expected a str, got %r" % (text,))
    negative = text.startswith("-")
    body = text[1:] if negative else text
    if not body or any(ch not in _DIGITS for ch in body):
        raise ValueError("not a decimal integer: %r" % (text,))
    digits = [ord(ch) - 48 for ch in reversed(body)]
    while len(digits) > 1 and digits[-1] == 0:
        digits.pop()
    return negative, digits


def multiply(a, b):
    neg_a, da = _parse(a)
    neg_b, db = _parse(b)
    result = [0] * (len(da) + len(db))
    for i, x in enumerate(da):
        if x == 0:
            continue
        carry = 0
        k = i
        for y in db:
            total = result[k] + x * y + carry
            carry, result[k] = divmod(total, 10)
            k += 1
        while carry:
            total = result[k] + carry
            carry, result[k] = divmod(total, 10)
            k += 1
    if len(result) > 1 and result[-1] == 0:
        result.pop()
    text = "".join(_DIGITS[d] for d in reversed(result))
    if text == "0":
        return "0"
    return "-" + text if neg_a != neg_b else text
