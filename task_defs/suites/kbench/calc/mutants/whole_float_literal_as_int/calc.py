# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""A small recursive-descent evaluator for + - * / with unary minus and parentheses."""

_DIGITS = "0123456789"


def _tokenize(expr):
    if not isinstance(expr, str):
        raise ValueError("the expression must be a string")
    tokens = []
    i, n = 0, len(expr)
    while i < n:
        ch = expr[i]
        if ch == " ":
            i += 1
        elif ch in _DIGITS:
            j = i
            while j < n and expr[j] in _DIGITS:
                j += 1
            if j < n and expr[j] == ".":
                k = j + 1
                while k < n and expr[k] in _DIGITS:
                    k += 1
                if k == j + 1:
                    raise ValueError("a digit must follow the decimal point at position %d" % j)
                value = float(expr[i:k])
                tokens.append(("num", int(value) if value.is_integer() else value))
                i = k
            else:
                tokens.append(("num", int(expr[i:j])))
                i = j
        elif ch in "+-*/()":
            tokens.append((ch, None))
            i += 1
        else:
            raise ValueError("unexpected character %r at position %d" % (ch, i))
    tokens.append(("end", None))
    return tokens


class _Parser:
    def __init__(self, tokens):
        self.tokens = tokens
        self.pos = 0

    def peek(self):
        return self.tokens[self.pos][0]

    def take(self):
        tok = self.tokens[self.pos]
        self.pos += 1
        return tok

    def expression(self):
        value = self.term()
        while self.peek() in ("+", "-"):
            op = self.take()[0]
            right = self.term()
            value = value + right if op == "+" else value - right
        return value

    def term(self):
        value = self.unary()
        while self.peek() in ("*", "/"):
            op = self.take()[0]
            right = self.unary()
            value = value * right if op == "*" else value / right
        return value

    def unary(self):
        if self.peek() == "-":
            self.take()
            return -self.unary()
        return self.primary()

    def primary(self):
        kind, value = self.take()
        if kind == "num":
            return value
        if kind == "(":
            inner = self.expression()
            if self.take()[0] != ")":
                raise ValueError("missing closing parenthesis")
            return inner
        raise ValueError("unexpected %r" % kind)


def evaluate(expr):
    parser = _Parser(_tokenize(expr))
    value = parser.expression()
    if parser.peek() != "end":
        raise ValueError("unexpected %r after the expression" % parser.peek())
    return value
