# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The tiny test harness every hidden test imports (stdlib only).

It runs in the sandbox with the work folder as the current folder. Outcomes
travel back to the grader by exit code AND a final line carrying a nonce the
grader handed over, so agent code that calls sys.exit(0) or prints "pass"
cannot fake a pass:

    exit 0 + result line "pass"  -> pass
    exit 1 + result line "wrong" -> wrong (an assertion did not hold)
    exit 2                       -> crash (the agent's code raised or would not load)
"""
import importlib.util
import json
import os
import subprocess
import sys
import traceback

# The grader hands the nonce over on stdin, which agent code loaded later cannot read back.
_NONCE = sys.stdin.readline().strip()
_CASES = []
_WORK = os.getcwd()


class Crash(Exception):
    """The agent's code failed to run at all (import error, syntax error, missing function)."""


def _die_crash(kind, value, tb):
    # An exception outside a case (e.g. at import) is a crash, never "wrong".
    traceback.print_exception(kind, value, tb)
    _finish("crash")


sys.excepthook = _die_crash


def _finish(outcome):
    sys.stdout.flush()
    sys.stderr.flush()
    os.write(1, ("\nKBTEST-RESULT %s %s\n" % (_NONCE, outcome)).encode())
    os._exit({"pass": 0, "wrong": 1}.get(outcome, 2))


def path(name):
    return os.path.join(_WORK, name)


def read(name):
    with open(path(name), encoding="utf-8", errors="replace") as fh:
        return fh.read()


def read_bytes(name):
    """The file exactly as written: line endings and encoding untouched."""
    with open(path(name), "rb") as fh:
        return fh.read()


def exists(name):
    return os.path.exists(path(name))


def load(filename, modname=None):
    """Import the agent's Python file by path; any failure is a crash."""
    if _WORK not in sys.path:
        sys.path.append(_WORK)  # appended, so agent files never shadow the stdlib or this harness
    modname = modname or os.path.splitext(os.path.basename(filename))[0]
    try:
        spec = importlib.util.spec_from_file_location(modname, path(filename))
        mod = importlib.util.module_from_spec(spec)
        sys.modules[modname] = mod
        spec.loader.exec_module(mod)
    except BaseException as exc:  # SystemExit from agent code is a crash too
        print("CRASH loading %s: %r" % (filename, exc))
        traceback.print_exc()
        _finish("crash")
    return mod


def func(mod, name):
    fn = getattr(mod, name, None)
    if not callable(fn):
        raise Crash("%s has no function %s" % (getattr(mod, "__name__", mod), name))
    return fn


def run(args, stdin=None, timeout=20, env=None):
    """Run a command in the work folder; returns (returncode, stdout, stderr)."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    try:
        cp = subprocess.run(args, cwd=_WORK, input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL, capture_output=True, text=True,
                            timeout=timeout, env=full_env, errors="replace")
    except subprocess.TimeoutExpired:
        raise AssertionError("command did not finish in %ss: %s" % (timeout, args))
    return cp.returncode, cp.stdout, cp.stderr


def node(filename, expr, timeout=20):
    """Require the agent's JS file as `m`, evaluate `expr`, return its JSON value.

    The value travels on a marked line, so anything the agent's module prints cannot garble it.
    """
    script = (
        "let m; try { m = require(%s); } catch (e) { console.error(String(e && e.stack || e)); process.exit(97); }\n"
        "const send = (o) => process.stdout.write('\\n' + %s + JSON.stringify(o) + '\\n');\n"
        "Promise.resolve().then(() => (%s)).then(v => send({v: v === undefined ? null : v}),"
        " e => send({err: String(e && e.message || e), name: String(e && e.name || 'Error')}));\n"
    ) % (json.dumps(path(filename)), json.dumps(_NODE_MARK), expr)
    rc, out, err = run(["node", "-e", script], timeout=timeout)
    if rc == 97:
        raise Crash("cannot load %s: %s" % (filename, err.strip()[-400:]))
    marked = [ln for ln in out.splitlines() if ln.startswith(_NODE_MARK)]
    if rc != 0 or not marked:
        raise Crash("node failed (exit %s): %s" % (rc, err.strip()[-400:]))
    data = json.loads(marked[-1][len(_NODE_MARK):])
    if "err" in data:
        raise Thrown(data["err"], data.get("name", "Error"))
    return data["v"]


_NODE_MARK = "KBNODE-VALUE:"


class Thrown(Exception):
    """A JavaScript function threw; tests that expect an error catch this (`.name` is e.g. "TypeError")."""

    def __init__(self, message, name="Error"):
        super().__init__(message)
        self.name = name


def case(fn):
    _CASES.append(fn)
    return fn


def eq(got, want, what=""):
    if got != want:
        raise AssertionError("%s: expected %r, got %r" % (what or "value", want, got))


def ok(cond, what):
    if not cond:
        raise AssertionError(what)


def raises(exc_types, fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except exc_types:
        return
    except Exception as exc:
        raise AssertionError("expected %s, got %r" % (exc_types, exc))
    raise AssertionError("expected %s, nothing was raised" % (exc_types,))


def main():
    failed = crashed = 0
    for fn in _CASES:
        try:
            fn()
            print("PASS", fn.__name__)
        except AssertionError as exc:
            failed += 1
            print("FAIL %s: %s" % (fn.__name__, exc))
        except BaseException as exc:
            crashed += 1
            print("CRASH %s: %r" % (fn.__name__, exc))
            traceback.print_exc(limit=3)
    print("%d passed, %d failed, %d crashed" % (len(_CASES) - failed - crashed, failed, crashed))
    _finish("crash" if crashed else "wrong" if failed else "pass" if _CASES else "crash")
