"""The judge's sitecustomize: copied as sitecustomize.py into the judge's tools folder (commands.py) and run by every
Python a verification command starts. kbench never imports this module itself.

Such a Python starts with PYTHONSAFEPATH=1 and the tools folder on PYTHONPATH, so at this point sys.path holds the
judge's tools, the standard library and the system's site-packages, nothing of the work folder. The folder Python
would have put first (the script's own, or the current one for -c, -m and stdin) goes last instead: the work
folder's own modules still import (a SWE check's `import calc`), never in place of a standard or judge module.

A check that later puts a folder first (`sys.path.insert(0, '.')`, or pytest's rootdir insertion) changes nothing for
those names: a finder ahead of all others serves every standard-library module and every judge tool (pytest and what
it needs) from the folders trusted at start-up only, and refuses one that is not there rather than let a file of the
same name in the work folder answer.
"""

import os
import sys
from importlib.machinery import BuiltinImporter, FrozenImporter, PathFinder

_TRUSTED = [p for p in sys.path if p]
_TOOLS = os.path.dirname(os.path.abspath(__file__))
# taken by the judge even where this machine lacks them: a work folder's pytest.py never stands in for pytest
_RESERVED = {"pytest", "_pytest", "py", "pluggy"}


def _tool_names():
    names = set()
    for entry in os.listdir(_TOOLS):
        stem = entry[:-3] if entry.endswith(".py") else entry
        if stem.isidentifier() and stem != "sitecustomize":
            names.add(stem)
    return names


_PROTECTED = frozenset(sys.stdlib_module_names) | _RESERVED | _tool_names()


class _TrustedFirst:
    """Standard and judge modules from the trusted folders, whatever sys.path says by now."""

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        # a submodule is looked for in its package's own folder, which came from here already
        if path is not None or name not in _PROTECTED:
            return None
        if BuiltinImporter.find_spec(name) or FrozenImporter.find_spec(name):
            return None  # the interpreter's own, found by the finders after this one
        spec = PathFinder.find_spec(name, _TRUSTED)
        if spec is None:
            raise ModuleNotFoundError("No module named %r (a standard or judge module, and not installed)" % name,
                                      name=name)
        return spec


sys.meta_path.insert(0, _TrustedFirst)


def _own_folder():
    first = sys.argv[0] if sys.argv else ""
    if first not in ("", "-", "-c", "-m"):
        return os.path.dirname(os.path.abspath(first))
    try:
        return os.getcwd()
    except OSError:  # the current folder is gone: nothing to add
        return None


if sys.flags.safe_path:
    _folder = _own_folder()
    if _folder:
        sys.path.append(_folder)
