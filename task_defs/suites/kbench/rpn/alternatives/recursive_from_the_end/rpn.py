# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import sys

DIGITS = "0123456789"


def to_number(tok):
    body = tok[1:] if tok.startswith("-") else tok
    whole, dot, frac = body.partition(".")
    if not whole or any(c not in DIGITS for c in whole):
        raise ValueError("bad token %r" % tok)
    if dot and (not frac or any(c not in DIGITS for c in frac)):
        raise ValueError("bad token %r" % tok)
    return float(tok) if dot else int(tok)


def eval_rpn(text):
    tokens = text.split()
    if not tokens:
        raise ValueError("nothing to evaluate")
    values = [None if t in "+-*/" and len(t) == 1 else to_number(t) for t in tokens]
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 4 * len(tokens) + 100))
    pos = [len(tokens)]

    def take():
        if pos[0] == 0:
            raise ValueError("an operator is missing an operand")
        pos[0] -= 1
        i = pos[0]
        if values[i] is not None:
            return values[i]
        right = take()
        left = take()
        op = tokens[i]
        if op == "+":
            return left + right
        if op == "-":
            return left - right
        if op == "*":
            return left * right
        return left / right

    result = take()
    if pos[0] != 0:
        raise ValueError("more than one value is left")
    return result
