# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import re

NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?\Z")
OPS = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b,  # ZeroDivisionError propagates
}


def eval_rpn(text):
    stack = []
    tokens = text.split()
    if not tokens:
        raise ValueError("empty expression")
    for tok in tokens:
        if tok in OPS:
            if len(stack) < 2:
                raise ValueError("operator %r needs two operands" % tok)
            b = stack.pop()
            a = stack.pop()
            stack.append(OPS[tok](a, b))
        elif NUMBER.match(tok):
            stack.append(float(tok) if "." in tok else int(tok))
        else:
            raise ValueError("unknown token %r" % tok)
    if len(stack) != 1:
        raise ValueError("%d values left over" % len(stack))
    return stack[0]
