# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
def _tokens(expr):
    if not isinstance(expr, str):
        raise ValueError("expected a string")
    out = []
    i = 0
    while i < len(expr):
        c = expr[i]
        if c == " ":
            i += 1
            continue
        if c.isdigit():
            j = i
            while j < len(expr) and expr[j].isdigit():
                j += 1
            if j < len(expr) and expr[j] == ".":
                k = j + 1
                while k < len(expr) and expr[k] in "0123456789":
                    k += 1
                if k == j + 1:
                    raise ValueError("no digits after the point")
                out.append(float(expr[i:k]))
                i = k
            else:
                out.append(int(expr[i:j]))
                i = j
            continue
        if c in "+-*/()":
            out.append(c)
            i += 1
            continue
        raise ValueError("bad character %r" % c)
    return out


class _P:
    def __init__(self, toks):
        self.t = toks
        self.i = 0

    def look(self):
        return self.t[self.i] if self.i < len(self.t) else None

    def next(self):
        tok = self.look()
        self.i += 1
        return tok

    def is_op(self, *ops):
        tok = self.look()
        return isinstance(tok, str) and tok in ops

    def expr(self):
        v = self.term()
        while self.is_op("+", "-"):
            if self.next() == "+":
                v = v + self.term()
            else:
                v = v - self.term()
        return v

    def term(self):
        v = self.factor()
        while self.is_op("*", "/"):
            if self.next() == "*":
                v = v * self.factor()
            else:
                v = v / self.factor()
        return v

    def factor(self):
        if self.is_op("-"):
            self.next()
            return -self.factor()
        tok = self.next()
        if tok == "(":
            v = self.expr()
            if self.next() != ")":
                raise ValueError("expected )")
            return v
        if isinstance(tok, (int, float)):
            return tok
        raise ValueError("unexpected %r" % (tok,))


def evaluate(expr):
    p = _P(_tokens(expr))
    v = p.expr()
    if p.look() is not None:
        raise ValueError("trailing %r" % (p.look(),))
    return v
