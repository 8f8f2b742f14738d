# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Long multiplication on limbs of four decimal digits, most significant limb last."""

BASE = 10000
ZERO = ord("0")


def _limbs(text):
    if not isinstance(text, str):
        raise ValueError("multiply takes decimal strings")
    sign = -1 if text[:1] == "-" else 1
    body = text[1:] if sign < 0 else text
    if body == "" or not all("0" <= ch <= "9" for ch in body):
        raise ValueError("not a decimal integer: %r" % (text,))
    limbs = []
    for end in range(len(body), 0, -4):
        value = 0
        for ch in body[max(0, end - 4):end]:
            value = value * 10 + (ord(ch) - ZERO)
        limbs.append(value)
    return sign, limbs


def multiply(a, b):
    sa, la = _limbs(a)
    sb, lb = _limbs(b)
    acc = [0] * (len(la) + len(lb) + 1)
    for i, x in enumerate(la):
        if x:
            for j, y in enumerate(lb):
                acc[i + j] += x * y
    carry = 0
    for k in range(len(acc)):
        carry, acc[k] = divmod(acc[k] + carry, BASE)
    while len(acc) > 1 and acc[-1] == 0:
        acc.pop()
    text = "".join("%04d" % limb for limb in reversed(acc)).lstrip("0") or "0"
    return "-" + text if sa * sb < 0 and text != "0" else text
