# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import re

NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?\Z")


def parse_number(tok):
    if not NUMBER.match(tok):
        raise ValueError("not a number: %r" % tok)
    return float(tok) if "." in tok else int(tok)


def eval_rpn(text):
    tokens = text.split()
    if not tokens:
        raise ValueError("empty expression")
    stack = []
    for tok in tokens:
        if tok in ("+", "-", "*", "/"):
            if len(stack) < 2:
                raise ValueError("operator %r needs two values" % tok)
            b = stack.pop()
            a = stack.pop()
            if tok == "+":
                stack.append(a + b)
            elif tok == "-":
                stack.append(a - b)
            elif tok == "*":
                stack.append(a * b)
            else:
                try:
                    stack.append(a / b)
                except ZeroDivisionError:
                    raise ValueError("division by zero") from None
        else:
            stack.append(parse_number(tok))
    if len(stack) != 1:
        raise ValueError("%d values left" % len(stack))
    return stack[0]
