# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import ast
import operator

_BIN = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


def _value(node):
    if isinstance(node, ast.Expression):
        return _value(node.body)
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_value(node.operand)
    if isinstance(node, ast.BinOp) and type(node.op) in _BIN:
        return _BIN[type(node.op)](_value(node.left), _value(node.right))
    raise ValueError("unsupported syntax: %s" % type(node).__name__)


def evaluate(expr):
    if not isinstance(expr, str):
        raise ValueError("expected a string")
    try:
        tree = ast.parse(expr.strip(" "), mode="eval")
    except SyntaxError as exc:
        raise ValueError(str(exc)) from None
    return _value(tree)
