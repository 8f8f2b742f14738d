"""Work formulas: arithmetic expressions over a shape's parameters, evaluated without eval()."""

from __future__ import annotations

import ast
import math
import operator

_BINOPS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_FUNCS = {"min": min, "max": max, "ceil": math.ceil, "floor": math.floor, "log2": math.log2}


class FormulaError(ValueError):
    pass


def names_in(expr: str) -> set[str]:
    """The shape parameters an expression uses (function names excluded)."""
    tree = _parse(expr)
    funcs = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} - funcs


def _parse(expr: str) -> ast.Expression:
    try:
        return ast.parse(expr, mode="eval")
    except SyntaxError as exc:
        raise FormulaError(f"not an arithmetic expression: {expr!r} ({exc.msg})") from None


def evaluate(expr: str, shape: dict[str, int | float]) -> float:
    """Value of `expr` for `shape`; only numbers, shape names, + - * / // % **, min, max, ceil, floor, log2."""

    def ev(node: ast.AST) -> float:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in shape:
                raise FormulaError(f"{node.id!r} is not a shape parameter (have {', '.join(sorted(shape)) or 'none'})")
            return shape[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            return _BINOPS[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = ev(node.operand)
            return -v if isinstance(node.op, ast.USub) else v
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCS
                and not node.keywords):
            return _FUNCS[node.func.id](*[ev(a) for a in node.args])
        raise FormulaError(f"unsupported element {ast.dump(node)[:60]!r} in {expr!r}")

    try:
        return float(ev(_parse(expr)))
    except ZeroDivisionError:
        raise FormulaError(f"division by zero in {expr!r} for shape {shape}") from None
