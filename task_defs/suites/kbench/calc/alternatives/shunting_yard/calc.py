# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import operator
import re

_TOKEN = re.compile(r" *(?:([0-9]+(?:\.[0-9]+)?)|([-+*/()]))")
_BINARY = {"+": (1, operator.add), "-": (1, operator.sub), "*": (2, operator.mul), "/": (2, operator.truediv)}
_NEG = "neg"  # unary minus: binds tighter than every binary operator


def _scan(expr):
    pos = 0
    while True:
        while pos < len(expr) and expr[pos] == " ":
            pos += 1
        if pos == len(expr):
            return
        m = _TOKEN.match(expr, pos)
        if not m:
            raise ValueError("cannot read %r at position %d" % (expr[pos], pos))
        number, sym = m.groups()
        if number is not None:
            yield float(number) if "." in number else int(number)
        else:
            yield sym
        pos = m.end()


def _to_rpn(expr):
    out, ops = [], []
    want_operand = True
    for tok in _scan(expr):
        if want_operand:
            if isinstance(tok, (int, float)):
                out.append(tok)
                want_operand = False
            elif tok == "(":
                ops.append(tok)
            elif tok == "-":
                ops.append(_NEG)
            else:
                raise ValueError("expected a number, got %r" % tok)
        else:
            if tok in _BINARY:
                prec = _BINARY[tok][0]
                while ops and (ops[-1] == _NEG or (ops[-1] in _BINARY and _BINARY[ops[-1]][0] >= prec)):
                    out.append(ops.pop())
                ops.append(tok)
                want_operand = True
            elif tok == ")":
                while ops and ops[-1] != "(":
                    out.append(ops.pop())
                if not ops:
                    raise ValueError("unmatched )")
                ops.pop()
            else:
                raise ValueError("expected an operator, got %r" % (tok,))
    if want_operand:
        raise ValueError("the expression is empty or ends with an operator")
    while ops:
        op = ops.pop()
        if op == "(":
            raise ValueError("unclosed (")
        out.append(op)
    return out


def evaluate(expr):
    if not isinstance(expr, str):
        raise ValueError("expected a string")
    stack = []
    for item in _to_rpn(expr):
        if item == _NEG:
            stack.append(-stack.pop())
        elif isinstance(item, str):
            right = stack.pop()
            stack.append(_BINARY[item][1](stack.pop(), right))
        else:
            stack.append(item)
    return stack[0]
