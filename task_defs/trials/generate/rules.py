"""Pieces of an oracle: the rule an argument must meet and the calls a right answer makes. A rule accepts every form
a right answer may take (another case, a trailing slash or full stop), so the oracle refuses only wrong answers."""

from __future__ import annotations


def _rule(d: dict, fold: bool, optional: bool) -> dict:
    if fold:
        d["fold"] = True
    if optional:
        d["optional"] = True
    return d


def eq(v, fold: bool = False, optional: bool = False) -> dict:
    return _rule({"eq": v}, fold, optional)


def one_of(values, fold: bool = False, optional: bool = False) -> dict:
    return _rule({"any_of": list(dict.fromkeys(values))}, fold, optional)


def num(v, tol: float = 0.0, optional: bool = False) -> dict:
    d: dict = {"num": v}
    if tol:
        d["tol"] = tol
    return _rule(d, False, optional)


def call(tool: str, /, **args) -> dict:
    return {"name": tool, "args": args}


def exact(*calls: dict) -> dict:
    return {"kind": "calls_exact", "calls": list(calls)}


def parallel(*calls: dict) -> dict:
    return {"kind": "calls_set", "calls": list(calls)}


NO_CALL = {"kind": "no_call"}


def said(text: str) -> dict:
    """A quoted message: as written, and with or without its closing full stop (both say the same)."""
    bare = text.rstrip(".")
    return one_of([text, bare, bare + "."] if not text.endswith(("!", "?")) else [text], fold=True)


def path_rule(p: str) -> dict:
    return one_of([p, "./" + p])


def folder_rule(d: str) -> dict:
    return one_of([d, d + "/", "./" + d, "./" + d + "/"])


def into_rule(d: str, path: str) -> dict:
    """dst of a move or copy into a folder: the folder (the tools keep the name) or the full new path."""
    name = path.rsplit("/", 1)[-1]
    return one_of([d, d + "/", "./" + d, "./" + d + "/", f"{d}/{name}", f"./{d}/{name}"])
