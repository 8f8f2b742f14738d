# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The tiny test harness every hidden test imports (stdlib only).

It runs in the sandbox with the work folder as the current folder. Outcomes
travel back to the grader by exit code AND a final line carrying a nonce the
grader handed over, so agent code that calls sys.exit(0) or prints "pass"
cannot fake a pass:

    exit 0 + result line "pass"  -> pass
    exit 1 + result line "wrong" -> wrong (an assertion did not hold)
    exit 2                       -> crash (the agent's code raised or would not load)

The process that holds the nonce (the "judge") never runs agent code:

* `load()` starts a second Python process (this same file with `--serve`) that imports the agent's
  file and answers requests on two pipes; the judge gets proxies. Values cross as tagged JSON and
  are rebuilt by the judge from plain builtin types only, so agent objects never control ==, hash
  or repr in the judge (an agent object stays an opaque proxy that compares by identity).
* the judge makes itself non-dumpable before reading the nonce, so processes the agent starts
  (same uid) cannot ptrace it or read /proc/<pid>/mem.
* nothing reaches the judge through files either: under the grader the test and its data are never
  files in the sandbox (they arrive on stdin, see _judge()), and the judge imports only from the
  read-only stdlib, so a module agent code plants anywhere is never what the judge imports.
"""
import base64
import builtins
import copy
import json
import os
import pathlib
import select
import subprocess
import sys
import traceback
import types

# `python3 kbtest.py --serve FILE MODNAME RFD WFD` is the agent's side of load(); see _serve().
_SERVING = __name__ == "__main__" and sys.argv[1:2] == ["--serve"]


def _not_dumpable():
    """prctl(PR_SET_DUMPABLE, 0): no ptrace attach, no /proc/<pid>/mem, fd or environ for other processes of
    our uid. Children get dumpable back when they exec, which is fine: they never hold the nonce."""
    try:
        import ctypes
        ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)
    except Exception:  # no ctypes or no prctl (not Linux): nothing more we can do here
        pass


if _SERVING:
    _NONCE = ""  # the serving process never sees the nonce: its stdin is /dev/null
else:
    _not_dumpable()  # before the nonce is in memory
    # The grader hands the nonce over on stdin, which agent code cannot read back.
    _NONCE = sys.stdin.readline().strip()
_CASES = []
_WORK = os.getcwd()
_CHILDREN = []  # the serving processes load() started
_DATA = None  # the test's own files {name: bytes} once the grader has handed them over (see _judge)


def _judge():
    """How the grader runs a hidden test: `python3 -I -S -B -c "..."` puts this read-only folder on sys.path,
    imports kbtest (the nonce is read), takes the folder off sys.path again and calls this; stdin holds the nonce
    line and then one JSON line {"test": name, "files": {name: base64}} with every file of the test's folder.

    So the test never exists as a file agent code could read or a folder it could write: it is read here to
    the end of stdin before any agent code runs (nothing stays in the pipe), kept in this non-dumpable
    process, and run as __main__. From here on sys.path is the stdlib alone, read-only in the sandbox: -I
    leaves out the current folder, the script's folder, PYTHON* variables and the user's site, -S every
    site-packages, .pth and sitecustomize; -B writes no bytecode anywhere. What a test or the traceback
    printer imports late therefore never comes from the work folder, /tmp, HOME or this folder."""
    global _DATA
    sys.stdout.reconfigure(line_buffering=True)  # each case's verdict is in the log even if a safety stop kills us
    bundle = json.loads(sys.stdin.read())
    _DATA = {name: base64.b64decode(text, validate=True) for name, text in bundle["files"].items()}
    name = bundle["test"]
    source = _DATA[name].decode("utf-8")
    # A path in this read-only folder that cannot exist, so tracebacks find no file to show lines from: the test's
    # source stays out of the log (which boards show), and nothing anyone wrote there is read as its source.
    filename = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hidden", name)
    test = types.ModuleType("__main__")
    test.__file__ = filename
    sys.modules["__main__"] = test
    sys.argv = [filename]
    exec(compile(source, filename, "exec"), vars(test))


class Crash(Exception):
    """The agent's code failed to run at all (import error, syntax error, missing function, its process died)."""


class Timeout(Exception):
    """A safety stop fired: a command or a measured run went past its limit. The verdict is `timeout`, never
    `wrong`: how long something took on this machine says nothing certain about the answer."""


class AgentError(RuntimeError):
    """The agent's code raised an exception with no builtin Exception class the judge could rebuild."""


class _RemoteTraceback(Exception):
    """Carries the agent process's traceback text, chained as __cause__ so crash reports show where it failed."""

    def __str__(self):
        return "\n" + (self.args[0] if self.args else "")


class _Late(BaseException):
    """A call whose value the test threw away (so the judge did not wait for it) raised in the agent's process.

    In-process that exception would have ended the case right there, past every handler (the call was not
    inside any try), so it surfaces as a BaseException that no test handler catches; main() reports it as
    FAIL for an AssertionError and CRASH for anything else, as it would have."""

    def __init__(self, info):
        super().__init__("an earlier call raised %s: %s" % (info.get("n"), info.get("m")))
        self.assertion = "AssertionError" in info.get("t", ())


def _die_crash(kind, value, tb):
    # An exception outside a case (e.g. at import) is a crash, never "wrong".
    traceback.print_exception(kind, value, tb)
    _finish("crash")


if not _SERVING:
    sys.excepthook = _die_crash


def _finish(outcome, cases=None):
    """The verdict on the judge's own channel: every line carries the nonce agent code never sees. `cases` (from
    main()) is each case's verdict by name, the only per-case score the grader reads: the PASS/FAIL lines above
    are for people, and any process of the agent's can print those too."""
    for child in _CHILDREN:  # nothing the agent runs may print after the result line
        child.kill()
    for child in _CHILDREN:  # reaped, so the session's end finds nothing of ours still running
        try:
            child.proc.wait(timeout=2)
        except Exception:
            pass
    sys.stdout.flush()
    sys.stderr.flush()
    if cases is not None:
        os.write(1, ("\nKBTEST-CASES %s %s" % (_NONCE, json.dumps(cases, separators=(",", ":")))).encode())
    os.write(1, ("\nKBTEST-RESULT %s %s\n" % (_NONCE, outcome)).encode())
    os._exit({"pass": 0, "wrong": 1, "timeout": 3}.get(outcome, 2))


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


def _by_hand_dir():
    """An author running a test by hand (`python3 tests/test_task.py` beside a copy of this file): its folder."""
    return os.path.dirname(os.path.abspath(sys.argv[0]))


def data(name):
    """A file of the test's own folder as bytes, by its path there ("app.log.orig", "pristine_docs/a.txt").
    Under the grader it comes from memory (the folder never exists in the sandbox), so any time is fine."""
    if _DATA is None:
        with open(os.path.join(_by_hand_dir(), name), "rb") as fh:
            return fh.read()
    try:
        return _DATA[name]
    except KeyError:
        raise FileNotFoundError("the test's folder has no file %r" % (name,)) from None


def data_files(folder=""):
    """The paths, relative to `folder` and sorted, of the test's own files under `folder` ("" for all)."""
    prefix = folder.strip("/") + "/" if folder.strip("/") else ""
    if _DATA is not None:
        return sorted(n[len(prefix):] for n in _DATA if n.startswith(prefix))
    root = os.path.join(_by_hand_dir(), prefix)
    out = []
    for dirpath, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d != "__pycache__"]  # as the grader leaves them out
        out += [os.path.relpath(os.path.join(dirpath, n), root).replace(os.sep, "/") for n in names]
    return sorted(out)


# ---------------------------------------------------------------------------------------------------------
# Values on the wire. Plain data is copied as JSON; every container is a numbered node that other values
# point to (["R", n]), so deep nesting never recurses, and shared or cyclic structures arrive shared.
# Inline forms: None, bool, str, small int, finite float as themselves; ["I", hex] big int; ["F", repr]
# nan/inf; ["B", base64] bytes; ["C", re, im] complex; ["S", start, stop, step] slice; ["P", class, str]
# pathlib path; ["H", ...] an object living in the agent's process; ["J", id] an object of the judge the
# agent's process only holds a stand-in for; ["A", n] node n of the request (a reply hands back one of the
# judge's own arguments, so identity survives). Nothing here ever unpickles or evaluates anything.
# ---------------------------------------------------------------------------------------------------------
_BIG = 1 << 62
_NODE_TAGS = {list: "l", tuple: "t", dict: "d", set: "s", frozenset: "f", bytearray: "y"}
_TAG_TYPES = {v: k for k, v in _NODE_TAGS.items()}
_MUTABLE = (list, dict, set, bytearray)
_PATHS = {c.__name__: c for c in (pathlib.PurePath, pathlib.PurePosixPath, pathlib.PureWindowsPath,
                                   pathlib.Path, pathlib.PosixPath, pathlib.WindowsPath)}
_PATH_TYPES = set(_PATHS.values())
_PLAIN = {str, bool, type(None)}  # safe to put on the wire exactly as they are
_dumps = json.JSONEncoder(separators=(",", ":"), allow_nan=False).encode


class _ProtocolError(Exception):
    """The other side sent something that is not a valid message."""


class _Encoder:
    """Turns one message's values into JSON-able form, filling `nodes`; `other(obj)` handles non-data objects."""

    def __init__(self, other, seed=None):
        self.other = other
        self.nodes = []
        self.objs = []  # node index -> the object it was made from
        self.memo = dict(seed) if seed else {}  # id(obj) -> its inline reference
        self.todo = []

    def value(self, x):
        t = type(x)
        if t in _PLAIN:
            return x
        if t is int:
            return x if -_BIG < x < _BIG else ["I", format(x, "x")]  # hex: no limit on digits either way
        if t is float:
            return x if x - x == 0 else ["F", repr(x)]  # x - x is nan for nan and inf
        if t in _NODE_TAGS:
            ref = self.memo.get(id(x))
            if ref is None:
                ref = self.memo[id(x)] = ["R", len(self.nodes)]
                self.nodes.append(None)
                self.objs.append(x)  # also keeps x alive, so its id cannot be reused within this message
                self.todo.append(x)
            return ref
        if t is bytes:
            return ["B", base64.b64encode(x).decode("ascii")]
        if t is complex:
            return ["C", repr(x.real), repr(x.imag)]
        if t is slice:
            return ["S", self.value(x.start), self.value(x.stop), self.value(x.step)]
        if t in _PATH_TYPES:
            return ["P", t.__name__, str(x)]
        return self.other(x)

    def content(self, x):
        """A container's node: [tag, items]; dict items alternate key, value."""
        t = type(x)
        if t is bytearray:
            return ["y", base64.b64encode(x).decode("ascii")]
        if t is dict:
            items = []
            for k, v in x.items():
                items.append(self.value(k))
                items.append(self.value(v))
        else:
            items = [self.value(v) for v in x]
        return [_NODE_TAGS[t], items]

    def drain(self):
        """Fill every node still to do (a loop, not recursion: a 10,000-deep list is fine)."""
        todo, nodes = self.todo, self.nodes
        while todo:
            x = todo.pop()
            nodes[self.memo[id(x)][1]] = self.content(x)
        return nodes


class _Decoder:
    """Rebuilds values from plain builtin types only; `resolve(tagged)` handles H, J and A references."""

    def __init__(self, nodes, resolve):
        if type(nodes) is not list:
            raise _ProtocolError("nodes")
        self.nodes = nodes
        self.resolve = resolve
        self.built = [None] * len(nodes)
        self.ready = [False] * len(nodes)
        # Mutable containers first, empty: anything may point at them, even themselves.
        for n, node in enumerate(nodes):
            tag = node[0]
            if tag in ("l", "d", "s"):
                self.built[n] = _TAG_TYPES[tag]()
            elif tag == "y":
                self.built[n] = bytearray(base64.b64decode(node[1], validate=True))
                self.ready[n] = True
            elif tag not in ("t", "f"):
                raise _ProtocolError("node tag %r" % (tag,))
        for n, node in enumerate(nodes):
            if node[0] in ("l", "d", "s"):
                self._fill(self.built[n], node)
                self.ready[n] = True

    def _fill(self, obj, node):
        items = [self.value(v) for v in node[1]]
        if type(obj) is list:
            obj.extend(items)
        elif type(obj) is set:
            obj.update(items)
        else:
            if len(items) % 2:
                raise _ProtocolError("dict items")
            obj.update(zip(items[::2], items[1::2]))

    def _immutable(self, n):
        """Build tuple/frozenset node n after the immutable nodes inside it (a loop, not recursion)."""
        stack, visiting = [n], set()
        while stack:
            k = stack[-1]
            if self.ready[k]:
                stack.pop()
                continue
            tag, items = self.nodes[k]
            waiting = [v[1] for v in items if type(v) is list and v[:1] == ["R"] and type(v[1]) is int
                       and 0 <= v[1] < len(self.nodes) and not self.ready[v[1]] and self.nodes[v[1]][0] in ("t", "f")]
            if waiting:
                if k in visiting:
                    raise _ProtocolError("cycle through immutable nodes")
                visiting.add(k)
                stack.extend(waiting)
                continue
            self.built[k] = (tuple if tag == "t" else frozenset)(self.value(v) for v in items)
            self.ready[k] = True
            stack.pop()
        return self.built[n]

    def value(self, v):
        t = type(v)
        if t in _PLAIN or t is int or t is float:
            return v
        if t is not list or not v:
            raise _ProtocolError("value %r" % (t,))
        tag = v[0]
        if tag == "R":
            n = v[1]
            if type(n) is not int or not 0 <= n < len(self.nodes):
                raise _ProtocolError("node reference")
            return self.built[n] if self.ready[n] or self.nodes[n][0] in ("l", "d", "s") else self._immutable(n)
        if tag == "I":
            return int(v[1], 16)
        if tag == "F":
            if v[1] not in ("nan", "inf", "-inf"):
                raise _ProtocolError("float")
            return float(v[1])
        if tag == "B":
            return base64.b64decode(v[1], validate=True)
        if tag == "C":
            return complex(float(v[1]), float(v[2]))
        if tag == "S":
            return slice(self.value(v[1]), self.value(v[2]), self.value(v[3]))
        if tag == "P":
            if type(v[2]) is not str:
                raise _ProtocolError("path")
            return _PATHS[v[1]](v[2])
        return self.resolve(v)


def _exc_info(exc):
    """An exception as data: the builtin classes in its MRO, plain args, message, type name and traceback."""
    try:
        names = [k.__name__ for k in type(exc).__mro__ if getattr(builtins, k.__name__, None) is k]
        args = list(exc.args)
        if not all(type(a) in _PLAIN or type(a) in (int, float) and a - a == 0 and -_BIG < a < _BIG for a in args):
            args = None
        text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        return {"t": names, "a": args, "m": _text(exc), "n": _text(type(exc).__qualname__), "tb": _text(text)}
    except BaseException:  # the agent's exception would not even describe itself
        return {"t": ["RuntimeError"], "a": None, "m": "(an exception that could not be described)", "n": "?", "tb": ""}


def _text(x):
    """A plain str whatever x is (str() of an agent object may itself return a str subclass)."""
    try:
        s = x if type(x) is str else str(x)
        return str.__str__(s) if isinstance(s, str) else "?"
    except BaseException:
        return "?"


# ---------------------------------------------------------------------------------------------------------
# The judge's side of load(): proxies for objects that live in the agent's process.
# ---------------------------------------------------------------------------------------------------------
_MAIN_CODE = None  # main().__code__, set below: the frame walk in _dropped() stops there
_CODE_INFO = {}
# Dunder names a proxy forwards through getattr; others (copy/pickle hooks, __fspath__, ...) do not exist.
_FORWARD_DUNDERS = {"__name__", "__qualname__", "__doc__", "__module__"}


_PLAIN_ARGS = {"LOAD_FAST", "LOAD_CONST", "BINARY_OP", "UNARY_NEGATIVE"}
# The interpreters whose bytecode _callee() and _code_info() were written against (PRECALL, LOAD_METHOD, CALL then
# POP_TOP, the exception table). Another version compiles `s.push(x)` differently: the reading would find no
# statement to pipeline, or worse skip the wait for a call whose value is used; so load() refuses to run there.
_PIPELINE_PYTHONS = {("cpython", 3, 11)}


def _check_python():
    v = sys.version_info
    if (sys.implementation.name, v[0], v[1]) in _PIPELINE_PYTHONS:
        return
    known = ", ".join("%s %d.%d" % k for k in sorted(_PIPELINE_PYTHONS))
    raise RuntimeError(
        "kbtest.py: load() pipelines calls by reading the bytecode of %s, and this is %s %d.%d.%d. Run the hidden "
        "tests with a Python the harness knows (the grader runs /usr/bin/python3), or teach _callee() and "
        "_code_info() this version's bytecode, add it to _PIPELINE_PYTHONS and run tests/test_kbtest_pipelining.py."
        % (known, sys.implementation.name, v[0], v[1], v[2]))


def _callee(ins, i):
    """The name a CALL at ins[i] calls, when it is `obj.method(...)` or `len(...)` with arguments made only of
    local variables, constants and arithmetic; else None. `s.push(n - i)` gives "push", `len(s)` gives "len";
    `out.extend(map(f, xs))` or `xs.sort(key=b.key)` give None: C code in between could be what calls the agent,
    and its value would be wanted."""
    j = i - 1
    if j >= 0 and ins[j].opname == "PRECALL":
        j -= 1
    while j >= 0 and ins[j].opname in _PLAIN_ARGS:
        j -= 1
    if j < 0:
        return None
    b = ins[j]
    if b.opname == "LOAD_METHOD":
        return b.argval
    if b.opname in ("LOAD_GLOBAL", "LOAD_NAME") and b.argval == "len":
        return "len"
    return None


def _code_info(code):
    """({offset of a CALL whose value is popped at once: the name it calls}, [start, end) ranges covered by
    try/with handlers)."""
    info = _CODE_INFO.get(code)
    if info is None:
        import dis  # only a judge that load()s anything pays for it
        ins = list(dis.get_instructions(code))
        drops = {}
        for i, a in enumerate(ins[:-1]):
            if a.opname == "CALL" and ins[i + 1].opname == "POP_TOP":
                name = _callee(ins, i)
                if name is None:
                    continue
                drops[a.offset] = name
                if i and ins[i - 1].opname == "PRECALL":  # 3.11 runs len(x) inside a specialised PRECALL
                    drops[ins[i - 1].offset] = name
        guarded = [(e.start, e.end) for e in dis._parse_exception_table(code)]
        info = _CODE_INFO[code] = (drops, guarded)
    return info


def _dropped(frame, name):
    """True when a call from `frame` need not be waited for: its value is thrown away (a statement like
    `s.push(x)` or `len(s)`), it runs inside a kb.main() case, and no try/with in any frame up to main()
    could see its exception. Pipelining those keeps tests that make ~10^5 calls fast; anything used, or
    anything that could be caught, waits for its answer as before."""
    drops, guarded = _code_info(frame.f_code)
    if drops.get(frame.f_lasti) != name:  # not a statement that calls exactly this (len, or this method) itself
        return False
    while True:
        lasti = frame.f_lasti
        for start, end in guarded:
            if start <= lasti < end:
                return False
        frame = frame.f_back
        if frame is None:
            return False
        if frame.f_code is _MAIN_CODE:
            return True
        guarded = _code_info(frame.f_code)[1]


class _Proxy:
    """An object in the agent's process. Never compares, hashes or prints via the agent: identity only."""

    def __getattr__(self, name):
        if name[:2] == "__" and name[-2:] == "__" and name not in _FORWARD_DUNDERS:
            raise AttributeError(name)
        cls = type(self)
        if name in cls._kb_methods:  # a method of its class seen before: no round trip just to look it up
            stub = _Method(self, name)
            object.__setattr__(self, name, stub)
            return stub
        return self._kb_conn.getattr(self, name)

    def __setattr__(self, name, value):
        self._kb_conn.request("s", self._kb_h, name, (value,), None)

    def __repr__(self):
        return "<%s %s>" % (self._kb_what, self._kb_type)


class _Obj(_Proxy):
    _kb_methods = frozenset()
    _kb_what = "agent object"

    def __len__(self):
        return self._kb_conn.length(self, sys._getframe(1))

    def __bool__(self):
        return self._kb_conn.dunder(self, "bool", ())

    def __iter__(self):
        return iter(self._kb_conn.dunder(self, "iter", ()))  # made into a list over there

    def __next__(self):
        return self._kb_conn.dunder(self, "next", ())

    def __contains__(self, item):
        return self._kb_conn.dunder(self, "contains", (item,))

    def __getitem__(self, key):
        return self._kb_conn.dunder(self, "getitem", (key,))

    def __setitem__(self, key, value):
        self._kb_conn.dunder(self, "setitem", (key, value))

    def __delitem__(self, key):
        self._kb_conn.dunder(self, "delitem", (key,))


class _CallableObj(_Obj):
    _kb_what = "agent callable"

    def __call__(self, *args, **kwargs):
        return self._kb_conn.request("c", self._kb_h, None, args, kwargs, sys._getframe(1))


class _Module(_Proxy):
    _kb_methods = frozenset()
    _kb_what = "agent module"


class _Method:
    """obj.name bound on the judge's side: calling it is one request (getattr and call over there)."""

    def __init__(self, proxy, name):
        self._kb_proxy, self.__name__ = proxy, name

    def __call__(self, *args, **kwargs):
        p = self._kb_proxy
        return p._kb_conn.request("m", p._kb_h, self.__name__, args, kwargs, sys._getframe(1))

    def __repr__(self):
        return "<agent method %s of %r>" % (self.__name__, self._kb_proxy)


class _RemoteClass(type):
    """The type of class proxies: a real class (isinstance(proxy, type) holds), instances are proxies too."""

    def __call__(cls, *args, **kwargs):
        return cls._kb_conn.request("c", cls._kb_h, None, args, kwargs, sys._getframe(1))

    def __getattr__(cls, name):
        if name[:2] == "__" and name[-2:] == "__" and name not in _FORWARD_DUNDERS:
            raise AttributeError(name)
        return cls._kb_conn.getattr(cls, name)

    def __repr__(cls):
        return "<agent class %s>" % (cls.__qualname__,)


_ALL_CPUS = None  # the judge's CPUs before _share_cpu(); processes run() starts get them back


def _share_cpu():
    """Keep the judge and the agent's processes on one CPU. Every waited-for call is a hand-over from one
    process to the other and back; on one CPU that is two context switches (~10us), across CPUs each one
    also wakes an idle CPU, which costs several times more on virtual machines."""
    global _ALL_CPUS
    if _ALL_CPUS is not None:
        return
    try:
        _ALL_CPUS = os.sched_getaffinity(0)
        with open("/proc/self/stat", "rb") as fh:
            cpu = int(fh.read().rpartition(b")")[2].split()[36])  # field 39: the CPU we run on now
        os.sched_setaffinity(0, {cpu} if cpu in _ALL_CPUS else _ALL_CPUS)
    except Exception:
        pass


def _all_cpus():
    os.sched_setaffinity(0, _ALL_CPUS)  # commands the test runs get every CPU the judge had (see _share_cpu)


class _Child:
    """One agent module loaded in its own process, and the pipes to it."""

    def __init__(self, filename, modname):
        self.dead = None  # why the process is gone, once it is
        self.proxies = {}  # handle -> proxy (one proxy per agent object, so `is` works)
        self.jobjs, self.jids = [], {}  # judge objects the agent's process holds stand-ins for
        self.out = []  # dropped calls not written yet
        self.len_cache = None  # (handle, len) sent with the last answer
        self.unsynced = False  # dropped calls sent and not yet confirmed by a waited-for request
        req_r, self.req_w = os.pipe()
        self.rep_r, rep_w = os.pipe()
        argv = [sys.executable, "-I", "-B", "-u", os.path.abspath(__file__), "--serve", path(filename), modname,
                str(req_r), str(rep_w)]
        err = sys.stderr.fileno()  # the agent's prints still show in the test log
        _share_cpu()
        self.proc = subprocess.Popen(argv, cwd=_WORK, stdin=subprocess.DEVNULL, stdout=err, stderr=err,
                                     pass_fds=(req_r, rep_w))
        os.close(req_r)
        os.close(rep_w)
        self.inbuf = bytearray()
        _CHILDREN.append(self)

    def kill(self):
        try:
            self.proc.kill()
        except Exception:
            pass

    # -- sending ------------------------------------------------------------------------------------------
    def _export(self, x):
        """A judge object the agent's code gets a stand-in for (len, [], iteration, calls go back to it)."""
        if isinstance(x, _Proxy) or type(x) is _RemoteClass:
            if x._kb_conn is not self:
                raise TypeError("an object of one loaded module cannot be passed to another")
            return ["H", x._kb_h]
        if isinstance(x, type(sys)) or getattr(x, "__module__", None) == __name__:
            raise TypeError("modules and harness objects cannot be passed to agent code")
        jid = self.jids.get(id(x))
        if jid is None:
            jid = self.jids[id(x)] = len(self.jobjs)
            self.jobjs.append(x)  # kept alive: the id stays this object's
        return ["J", jid]

    def _write(self, data):
        try:
            while data:
                data = data[os.write(self.req_w, data):]
        except OSError:  # the process is gone; the read that follows says so
            self._gone()

    def _flush(self):
        if self.out:
            data, self.out = "".join(self.out).encode(), []
            self._write(data)

    def request(self, op, target, name, args, kwargs, frame=None):
        """Send one request; wait for its answer unless its value is thrown away (see _dropped)."""
        if self.dead:
            raise Crash(self.dead)
        self.len_cache = None  # any request may change what len() would say
        if not kwargs and all(type(x) in _PLAIN or type(x) is int and -_BIG < x < _BIG for x in args):
            a, kw, nodes, sent = list(args), None, [], []  # the common case, without the encoder
        else:
            enc = _Encoder(self._export)
            a = [enc.value(x) for x in args]
            kw = {k: enc.value(v) for k, v in kwargs.items()} if kwargs else None
            nodes, sent = enc.drain(), enc.objs
        if (frame is not None and op in "md" and not self.jobjs and _dropped(frame, name)
                and not any(type(o) in _MUTABLE for o in sent)):
            # Nothing can come back: no argument to update, no stand-in to call back, no value wanted.
            self.out.append(_dumps([op.upper(), target, name, a, kw, nodes]) + "\n")
            self.unsynced = True
            if len(self.out) >= 64:
                self._flush()
            return 0 if op == "d" else None  # only len() is dropped among dunders; its value is unused
        self.out.append(_dumps([op, target, name, a, kw, nodes]) + "\n")
        self._flush()
        return self._wait(sent)

    def getattr(self, proxy, name):
        v = self.request("g", proxy._kb_h, name, (), None)
        if type(v) is _MethodInfo:
            stub = _Method(proxy, name)
            if v.cacheable and not isinstance(proxy, type):
                type(proxy)._kb_methods.add(name)
                object.__setattr__(proxy, name, stub)
            return stub
        return v

    def dunder(self, proxy, op, args, frame=None):
        return self.request("d", proxy._kb_h, op, args, None, frame)

    def length(self, proxy, frame):
        """len(proxy). The agent's process sends len(obj) along with the answer to each call on obj, so
        `x = s.pop(); if len(s): ...` costs one round trip, not two. Nothing runs over there in between."""
        cached = self.len_cache
        if cached is not None and cached[0] == proxy._kb_h:
            self.len_cache = None
            return cached[1]
        return self.request("d", proxy._kb_h, "len", (), None, frame)

    def sync(self):
        """Confirm every dropped call so far ran without raising (else _Late is raised here)."""
        if self.unsynced and not self.dead:
            self.request("p", None, None, (), None)

    # -- receiving ----------------------------------------------------------------------------------------
    def _gone(self):
        if not self.dead:
            self.kill()
            try:
                code = self.proc.wait(timeout=5)
            except Exception:
                code = "?"
            self.dead = "the agent's process ended (exit code %s)" % (code,)
        raise Crash(self.dead)

    def _broken(self, why):
        self.kill()
        self.dead = "the agent's process sent a malformed message (%s)" % (why,)
        raise Crash(self.dead)

    def _readline(self):
        """One line from the agent's process, or what is left when it is gone. Not a plain readline: a process the
        agent forked may hold the pipe open after the agent's own process died, and end of input would never come;
        so while waiting, the agent's process is looked at twice a second."""
        while b"\n" not in self.inbuf:
            ready, _, _ = select.select([self.rep_r], [], [], 0.5)
            if ready:
                chunk = os.read(self.rep_r, 65536)
                if not chunk:
                    break
                self.inbuf += chunk
            elif self.proc.poll() is not None and not select.select([self.rep_r], [], [], 0)[0]:
                break
        cut = self.inbuf.find(b"\n") + 1 or len(self.inbuf)
        line, self.inbuf = bytes(self.inbuf[:cut]), self.inbuf[cut:]
        return line

    def _wait(self, sent):
        """Read until the answer comes; serve the agent's calls back into judge objects meanwhile."""
        while True:
            line = self._readline()
            if not line.endswith(b"\n"):
                self._gone()
            try:
                msg = json.loads(line)
                kind = msg[0]
                if kind == "q":
                    answer = None
                else:
                    self.unsynced = False
                    answer = self._answer(msg, sent)
            except (Crash, _Late):
                raise
            except Exception as exc:
                self._broken("%s: %s" % (type(exc).__name__, exc))
            if kind == "q":
                self._callback(msg)
                continue
            status, value = answer
            if status == "e":
                _raise_remote(value)
            if status == "late":
                raise _Late(value)
            return value

    def _resolve(self, sent):
        def resolve(v):
            tag = v[0]
            if tag == "H":
                return self._proxy(v)
            if tag == "J":
                return self.jobjs[v[1]]
            if tag == "A" and sent is not None:
                return sent[v[1]]
            raise _ProtocolError("tag %r" % (tag,))
        return resolve

    def _answer(self, msg, sent):
        kind = msg[0]
        if kind == "late":
            return "late", _check_info(msg[1])
        if kind not in ("r", "e", "M") or len(msg) != 5:
            raise _ProtocolError("reply %r" % (kind,))
        if msg[4] is not None:  # [handle, len(obj)] after a call on obj
            hid, n = msg[4]
            if type(hid) is not int or type(n) is not int or n < 0:
                raise _ProtocolError("len")
            self.len_cache = (hid, n)
        if kind == "r" and not msg[2] and not msg[3] and (type(msg[1]) in _PLAIN or type(msg[1]) in (int, float)):
            return "r", msg[1]  # a plain value and nothing to update: the common case
        dec = _Decoder(msg[2], self._resolve(sent))
        for n, node in msg[3]:  # arguments the call changed: update the judge's own objects in place
            obj = sent[n]
            if type(obj) not in _MUTABLE or node[0] != _NODE_TAGS[type(obj)]:
                raise _ProtocolError("update of node %r" % (n,))
            new = bytearray(base64.b64decode(node[1], validate=True)) if node[0] == "y" else _TAG_TYPES[node[0]]()
            if node[0] != "y":
                dec._fill(new, node)
            if type(obj) is list or type(obj) is bytearray:
                obj[:] = new
            else:
                obj.clear()
                obj.update(new)
        if kind == "e":
            return "e", _check_info(msg[1])
        if kind == "M":
            return "r", _MethodInfo(msg[1] is True)
        return "r", dec.value(msg[1])

    def _proxy(self, v):
        """["H", handle, kind, type name, extra]: the one proxy for that agent object."""
        hid = v[1]
        p = self.proxies.get(hid)
        if p is not None:
            return p
        kind, tname = v[2], v[3]
        if type(hid) is not int or type(tname) is not str:
            raise _ProtocolError("handle")
        if kind == "c":  # extra: [base class handles..., instances callable]
            bases = tuple(self._proxy(b) for b in v[4][0])
            root = _CallableObj if v[4][1] is True else _Obj
            if not any(issubclass(b, root) for b in bases):
                bases += (root,)
            try:
                p = _RemoteClass(tname.rpartition(".")[2] or "?", bases, {})
            except TypeError:  # bases that cannot be combined here: isinstance against them is lost, nothing else
                p = _RemoteClass(tname.rpartition(".")[2] or "?", (root,), {})
            type.__setattr__(p, "__qualname__", tname)
            type.__setattr__(p, "_kb_methods", set())
        elif kind == "o":  # extra: the class's handle value, or None with a callable flag for builtin types
            cls = self._proxy(v[4]) if type(v[4]) is list else (_CallableObj if v[4] is True else _Obj)
            p = object.__new__(cls)
        elif kind == "m":
            p = object.__new__(_Module)
            object.__setattr__(p, "__name__", tname)
        else:
            raise _ProtocolError("handle kind %r" % (kind,))
        for k, val in (("_kb_conn", self), ("_kb_h", hid), ("_kb_type", tname)):
            (type.__setattr__ if kind == "c" else object.__setattr__)(p, k, val)
        self.proxies[hid] = p
        return p

    def _callback(self, msg):
        """The agent's code used a stand-in: run that on the judge object the test handed over."""
        try:
            _, jid, op, name, a, nodes = msg
            obj = self.jobjs[jid]
            dec = _Decoder(nodes, self._resolve(None))
            args = [dec.value(v) for v in a]
        except Exception as exc:
            self._broken("callback: %s" % (exc,))
        try:
            if op == "len":
                r = len(obj)
            elif op == "getitem":
                r = obj[args[0]]
            elif op == "iter":
                r = list(obj)
            elif op == "reversed":
                r = list(reversed(obj))
            elif op == "contains":
                r = args[0] in obj
            elif op == "bool":
                r = bool(obj)
            elif op == "call":
                r = obj(*args)
            elif op == "getattr" and type(name) is str and not name.startswith("_"):
                r = getattr(obj, name)
            elif op in ("copy", "deepcopy"):  # made here, so the copy is a new object of the test, not the original
                r = getattr(copy, op)(obj)
            else:
                raise TypeError("this object does not support %s here" % (op,))
            enc = _Encoder(self._export)
            reply = ["r", enc.value(r), enc.drain(), [], None]
        except Exception as exc:
            info = _exc_info(exc)
            info["tb"] = ""  # the test's own code: not the agent's business
            reply = ["e", info, [], [], None]
        self._write((_dumps(reply) + "\n").encode())


class _MethodInfo:
    def __init__(self, cacheable):
        self.cacheable = cacheable


def _check_info(info):
    if (type(info) is not dict or type(info.get("t")) is not list or not all(type(n) is str for n in info["t"])
            or not all(type(info.get(k)) is str for k in ("m", "n", "tb"))):
        raise _ProtocolError("exception")
    a = info.get("a")
    if a is not None and (type(a) is not list or not all(type(x) in _PLAIN or type(x) in (int, float) for x in a)):
        raise _ProtocolError("exception args")
    return info


def _raise_remote(info):
    """Raise, in the judge, the first builtin Exception class in the agent exception's MRO."""
    exc = None
    for name in info["t"]:
        cls = getattr(builtins, name, None)
        if not (isinstance(cls, type) and issubclass(cls, BaseException)):
            continue
        if not issubclass(cls, Exception):  # SystemExit, KeyboardInterrupt, GeneratorExit: a crash, as before
            raise Crash("the agent's code raised %s: %s" % (info["n"], info["m"]))
        try:
            exc = cls(*info["a"]) if info["a"] is not None else cls(info["m"])
            break
        except Exception:  # e.g. UnicodeDecodeError needs five arguments: try the next class up
            continue
    if exc is None:
        exc = AgentError("%s: %s" % (info["n"], info["m"]))
    raise exc from _RemoteTraceback(info["tb"])


def load(filename, modname=None):
    """Import the agent's Python file in a process of its own; any failure is a crash. Returns a proxy."""
    _check_python()
    modname = modname or os.path.splitext(os.path.basename(filename))[0]
    child = _Child(filename, modname)
    try:
        return child._wait(None)
    except Crash:
        info = None
    except (AgentError, Exception) as exc:
        info = exc
    # The agent's process reports an import failure as an exception; a vanished process as Crash.
    print("CRASH loading %s: %r" % (filename, info if info is not None else Crash(child.dead)))
    if info is not None and isinstance(info.__cause__, _RemoteTraceback):
        print(info.__cause__.args[0])
    _finish("crash")


def func(mod, name):
    fn = getattr(mod, name, None)
    if not callable(fn):
        raise Crash("%s has no function %s" % (getattr(mod, "__name__", mod), name))
    return fn


def _sync_children():
    for child in _CHILDREN:
        child.sync()


def run(args, stdin=None, timeout=20, env=None):
    """Run a command in the work folder; returns (returncode, stdout, stderr)."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    try:
        cp = subprocess.run(args, cwd=_WORK, input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL,
                            capture_output=True, text=True, timeout=timeout, env=full_env, errors="replace",
                            preexec_fn=_all_cpus if _ALL_CPUS else None)
    except subprocess.TimeoutExpired:
        raise Timeout("command did not finish in %ss (a safety stop): %s" % (timeout, args)) from None
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


# ---------------------------------------------------------------------------------------------------------
# Cost checks. A verdict must not depend on how busy or how fast the machine is, so nothing here compares wall
# time with a number of seconds. What is compared is CPU time (user + system) that the kernel charged to a child
# process: the work it did, which barely moves when other programs compete for the CPUs. And it is compared with
# the CPU time of the test's own straightforward solution doing the same work, measured in this same grading
# right before, so a slow machine slows both alike. Wall time only bounds a run as a safety stop (Timeout).
# ---------------------------------------------------------------------------------------------------------
_CHILD_MARK = "KBCHILD "
_LAUNCH = ("import json, sys; exec(compile(json.loads(sys.stdin.readline()), '<measured>', 'exec'), "
           "{'__name__': '__main__'})")
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _cpu_so_far(pid):
    """CPU seconds of a live process and the children it has waited for (/proc, clock-tick resolution)."""
    try:
        with open("/proc/%d/stat" % pid, "rb") as fh:
            fields = fh.read().rpartition(b")")[2].split()
        return sum(int(x) for x in fields[11:15]) / _TICK  # utime, stime, cutime, cstime
    except (OSError, ValueError, IndexError):
        return 0.0


class Cost:
    """What one measured run gave: exit code, output, CPU seconds, and whether the CPU limit stopped it."""

    def __init__(self, rc, out, err, cpu, over):
        self.rc, self.out, self.err, self.cpu, self.over = rc, out, err, cpu, over

    def value(self, what):
        """The JSON value the run printed on its last KBCHILD line; a run that failed is a crash."""
        lines = [ln for ln in self.out.splitlines() if ln.startswith(_CHILD_MARK)]
        if self.rc != 0 or not lines:
            raise Crash("%s failed (exit %s): %s" % (what, self.rc, self.err.strip()[-800:]))
        return json.loads(lines[-1][len(_CHILD_MARK):])


def measure(code, stdin=None, cpu_limit=None, timeout=120, isolated=False):
    """Run Python source `code` in a fresh interpreter in the work folder and measure its CPU time.

    The run is stopped once it has used `cpu_limit` CPU seconds (Cost.over); past `timeout` seconds of wall
    time it is stopped as a safety stop and that raises Timeout. `isolated` runs it with -I (no agent file can
    be imported by accident: for the test's own reference)."""
    import threading
    import time
    flags = ["-I", "-B"] if isolated else ["-B", "-E", "-s"]
    # the source travels on stdin, not the command line, which any process of the sandbox could read
    proc = subprocess.Popen([sys.executable] + flags + ["-c", _LAUNCH], cwd=_WORK, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                            preexec_fn=_all_cpus if _ALL_CPUS else None)
    chunks = {"out": [], "err": []}

    def drain(stream, key):
        for block in iter(lambda: stream.read(65536), b""):
            chunks[key].append(block)

    readers = [threading.Thread(target=drain, args=(proc.stdout, "out"), daemon=True),
               threading.Thread(target=drain, args=(proc.stderr, "err"), daemon=True)]
    for t in readers:
        t.start()
    try:
        proc.stdin.write((json.dumps(code) + "\n" + (stdin or "")).encode())
        proc.stdin.close()
    except OSError:  # it exited without reading its input: its exit code says why
        pass
    deadline = time.monotonic() + timeout
    over = timed_out = False
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if cpu_limit is not None and _cpu_so_far(proc.pid) > cpu_limit:
            over = True
        elif time.monotonic() > deadline:
            timed_out = True
        if over or timed_out:
            try:
                os.killpg(proc.pid, 9)
            except OSError:
                pass
            pid, status, usage = os.wait4(proc.pid, 0)
            break
        time.sleep(0.01)
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, so Popen must not wait for it again
    for t in readers:
        t.join(timeout=5)
    try:
        os.killpg(proc.pid, 9)  # anything it left behind in its session
    except OSError:
        pass
    if timed_out:
        raise Timeout("a measured run did not finish in %ss of wall time (a safety stop)" % timeout)
    cpu = usage.ru_utime + usage.ru_stime
    out, err = (b"".join(chunks[k]).decode("utf-8", "replace") for k in ("out", "err"))
    return Cost(proc.returncode, out, err, max(cpu, cpu_limit or 0.0) if over else cpu, over)


_CHILD_PRELUDE = r'''
import importlib.util, json, os, sys
def answer(value):
    sys.stdout.write("\nKBCHILD " + json.dumps(value) + "\n")
cases = json.loads(sys.stdin.read() or "null")
'''
_CHILD_IMPORT = r'''
work = os.getcwd()
sys.path = [p for p in sys.path if p not in ("", work)] + [work]
spec = importlib.util.spec_from_file_location(%r, os.path.join(work, %r))
mod = importlib.util.module_from_spec(spec)
sys.modules[%r] = mod
spec.loader.exec_module(mod)
'''


def agent_code(filename, body):
    """Source for measure(): imports the agent's `filename` as `mod` (the work folder last on sys.path, so its
    files never shadow the stdlib), then runs `body`, which sees `cases` (the JSON value sent on stdin) and
    calls answer(value) once with its JSON-able result."""
    name = os.path.splitext(os.path.basename(filename))[0]
    return _CHILD_PRELUDE + _CHILD_IMPORT % (name, filename, name) + body + "\n"


def reference_code(source, body):
    """Source for measure() that runs the test's own solution `source`, then `body` as in agent_code()."""
    return _CHILD_PRELUDE + source + "\n" + body + "\n"


def within_cost(what, agent_code, reference_code, stdin=None, factor=10.0, floor=0.05, timeout=120):
    """The agent's code may use at most `factor` times the CPU time of the test's own straightforward solution
    doing the same work, measured now (at least `floor` seconds). Returns the agent's Cost; its value() is
    checked by the caller. Over the budget is `wrong`: the work grows faster than the prompt allows (an
    exponential search, a scan where a lookup was asked for). CPU time varies by a few tens of percent between
    runs at most, so a factor of 5 or more leaves a correct solution safe margin; wrong ones cost 100s of times."""
    ref = measure(reference_code, stdin, timeout=timeout, isolated=True)
    ref.value("the test's own reference run")  # a broken reference is the test's fault: a crash, loudly
    budget = factor * max(ref.cpu, floor)
    got = measure(agent_code, stdin, cpu_limit=budget, timeout=timeout)
    print("COST %s: %.3fs CPU; the test's own solution %.3fs; budget %.3fs" % (what, got.cpu, ref.cpu, budget))
    if got.over:
        raise AssertionError("%s: stopped at its budget of %.2fs of CPU time (%.0f times the %.2fs the test's own "
                             "solution took on the same input in this grading, counting at least %.2fs); the work "
                             "grows faster than the prompt allows" % (what, budget, factor, ref.cpu, floor))
    return got


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
    except (Crash, Timeout):  # the agent's process died or exited (a crash, as SystemExit was), or a safety stop
        raise
    except exc_types:
        return
    except Exception as exc:
        raise AssertionError("expected %s, got %r" % (exc_types, exc)) from exc
    raise AssertionError("expected %s, nothing was raised" % (exc_types,))


def main():
    failed = crashed = timed_out = 0
    cases = {}  # case name -> pass | fail | crash | timeout, handed to _finish for the nonce'd line
    for fn in _CASES:
        try:
            fn()
            _sync_children()  # calls whose values were dropped must have run cleanly before this case passes
            cases[fn.__name__] = "pass"
            print("PASS", fn.__name__)
        except Timeout as exc:
            timed_out += 1
            cases[fn.__name__] = "timeout"
            print("TIMEOUT %s: %s" % (fn.__name__, exc))
        except AssertionError as exc:
            failed += 1
            cases[fn.__name__] = "fail"
            print("FAIL %s: %s" % (fn.__name__, exc))
        except _Late as exc:  # as the dropped call's own exception would have been counted in-process
            if exc.assertion:
                failed += 1
                cases[fn.__name__] = "fail"
                print("FAIL %s: %s" % (fn.__name__, exc))
            else:
                crashed += 1
                cases[fn.__name__] = "crash"
                print("CRASH %s: %s" % (fn.__name__, exc))
        except BaseException as exc:
            crashed += 1
            cases[fn.__name__] = "crash"
            print("CRASH %s: %r" % (fn.__name__, exc))
            traceback.print_exc(limit=3)
    passed = len(_CASES) - failed - crashed - timed_out
    print("%d passed, %d failed, %d crashed, %d timed out" % (passed, failed, crashed, timed_out))
    # a wrong answer elsewhere is a verdict of its own; a safety stop only decides when nothing else failed
    _finish("crash" if crashed else "wrong" if failed else "timeout" if timed_out else "pass" if _CASES else "crash",
            cases)


_MAIN_CODE = main.__code__


# ---------------------------------------------------------------------------------------------------------
# The agent's side of load(): `python3 -I kbtest.py --serve FILE MODNAME RFD WFD`. Everything here runs
# with agent code around it and holds nothing worth stealing; it only answers the judge's requests.
# ---------------------------------------------------------------------------------------------------------
_BASES = (int, float, complex, str, bytes, bytearray, tuple, list, dict, set, frozenset)


def _as_base(x):
    """An instance of a builtin subclass as the plain builtin (its own __eq__ and friends are dropped), else None."""
    for base in _BASES:
        if isinstance(x, base):
            if base is int:
                return int.__int__(x)
            if base is float:
                return float.__float__(x)
            if base is complex:
                return complex(float(x.real), float(x.imag))
            if base is str:
                return str.__str__(x)
            if base is bytes:
                return bytes(memoryview(x))
            if base is tuple:
                return tuple.__getitem__(x, slice(None))
            return base.copy(x)  # list, dict, set, frozenset, bytearray: the base class's own copy
    return None


class _StandIn:
    """What agent code gets for a judge object: len, [], iteration, `in`, calls and public attributes go back; a copy
    (copy.copy, copy.deepcopy) is made by the judge, so it is a new object there and never maps back to the original."""
    __slots__ = ("_kb_jid", "__weakref__")

    def _kb(self, op, args=(), name=None):
        return _SERVER.ask(self._kb_jid, op, name, args)

    def __len__(self):
        return self._kb("len")

    def __getitem__(self, key):
        return self._kb("getitem", (key,))

    def __iter__(self):
        return iter(self._kb("iter"))

    def __reversed__(self):
        return iter(self._kb("reversed"))

    def __contains__(self, item):
        return self._kb("contains", (item,))

    def __bool__(self):
        return self._kb("bool")

    def __call__(self, *args):
        return self._kb("call", args)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return self._kb("getattr", (), name)

    def __copy__(self):
        return self._kb("copy")

    def __deepcopy__(self, memo):
        return self._kb("deepcopy")

    def __repr__(self):
        return "<object of the test #%d>" % self._kb_jid


class _Server:
    def __init__(self, rfd, wfd):
        self.rfile = os.fdopen(rfd, "rb")
        self.wfd = wfd
        self.objs, self.hids = {}, {}  # handle -> object, id(object) -> handle (objects stay alive)
        self.standins = {}
        self.late = None  # the exception of a dropped call, reported at the next waited-for request

    def send(self, msg):
        data = (_dumps(msg) + "\n").encode()
        while data:
            data = data[os.write(self.wfd, data):]

    # -- values -------------------------------------------------------------------------------------------
    def handle(self, x):
        hid = self.hids.get(id(x))
        if hid is None:
            hid = self.hids[id(x)] = len(self.objs) + 1
            self.objs[hid] = x
        if isinstance(x, type):
            bases = [self.handle(b) for b in x.__bases__ if b.__module__ != "builtins"]
            calls = any("__call__" in vars(k) for k in x.__mro__ if k is not object)
            return ["H", hid, "c", _text(x.__qualname__), [bases, calls]]
        if isinstance(x, type(sys)):
            return ["H", hid, "m", _text(x.__name__), None]
        t = type(x)
        extra = self.handle(t) if t.__module__ != "builtins" else callable(x)
        return ["H", hid, "o", _text(t.__qualname__), extra]

    def encoder(self, seed=None):
        conv = {}  # id(subclass instance) -> its plain copy, so a cycle through one ends

        def other(x):
            if type(x) is _StandIn:
                return ["J", x._kb_jid]
            plain = conv.get(id(x))
            if plain is None:
                plain = _as_base(x)
                if plain is None:
                    return self.handle(x)
                conv[id(x)] = (plain, x)  # x kept alive with it
            else:
                plain = plain[0]
            return enc.value(plain)
        enc = _Encoder(other, seed)
        return enc

    def resolve(self, v):
        tag = v[0]
        if tag == "H":
            return self.objs[v[1]]
        if tag == "J":
            s = self.standins.get(v[1])
            if s is None:
                s = self.standins[v[1]] = object.__new__(_StandIn)
                s._kb_jid = v[1]
            return s
        raise _ProtocolError("tag %r" % (tag,))

    # -- requests -----------------------------------------------------------------------------------------
    def serve(self):
        while True:
            line = self.rfile.readline()
            if not line:
                os._exit(0)  # the judge is gone
            self.dispatch(json.loads(line))

    def ask(self, jid, op, name, args):
        """A stand-in was used: ask the judge, serving its requests meanwhile (it may call us back)."""
        enc = self.encoder()
        a = [enc.value(x) for x in args]
        self.send(["q", jid, op, name, a, enc.drain()])
        while True:
            line = self.rfile.readline()
            if not line:
                os._exit(0)
            msg = json.loads(line)
            if msg[0] == "r":
                return _Decoder(msg[2], self.resolve).value(msg[1])
            if msg[0] == "e":
                _raise_remote(msg[1])
            self.dispatch(msg)

    def dispatch(self, msg):
        op, target, name, a, kw, nodes = msg
        dropped = op.isupper()
        if self.late is not None:  # a dropped call raised: in-process the case would have ended there
            if not dropped:
                self.send(["late", self.late])
                self.late = None
            return
        status, result, dec, snaps, obj = "r", None, None, (), None
        try:
            if not nodes and not kw and all(type(v) is not list for v in a):
                args, kwargs = a, {}  # plain values only: the common case, without the decoder
            else:
                dec = _Decoder(nodes, self.resolve)
                args = [dec.value(v) for v in a]
                kwargs = {k: dec.value(v) for k, v in kw.items()} if kw else {}
                # what each list/dict/set/bytearray argument holds now, to send back what the call changed
                snaps = [(n, o, _snap(o)) for n, o in enumerate(dec.built) if type(o) in _MUTABLE]
            op = op.lower()
            obj = self.objs[target] if target is not None else None
            if op == "c":
                result = obj(*args, **kwargs)
                if isinstance(obj, type) and isinstance(result, obj) and not dropped:
                    result = _Handle(result)  # an instance stays an instance, even of a dict subclass
            elif op == "m":
                result = getattr(obj, name)(*args, **kwargs)
            elif op == "g":
                result = getattr(obj, name)
                if type(result) is types.MethodType and result.__self__ is obj:
                    in_dict = name in getattr(obj, "__dict__", {})
                    owner = next((k for k in type(obj).__mro__ if name in vars(k)), None)
                    status = "M"
                    result = not in_dict and owner is not None and type(vars(owner)[name]) is types.FunctionType
            elif op == "s":
                setattr(obj, name, args[0])
            elif op == "d":
                result = _DUNDERS[name](obj, *args)
            elif op != "p":
                raise _ProtocolError("op %r" % (op,))
        except BaseException as exc:
            if dropped:
                self.late = _exc_info(exc)
                return
            status, result = "e", _exc_info(exc)
        if dropped:
            return
        length = None
        if op in ("m", "c") and status == "r" and not isinstance(obj, type) and _has_len(type(obj)):
            try:
                n = len(obj)
                length = [target, n]
            except BaseException:
                pass
        self.reply(status, result, dec, snaps, length)

    def reply(self, status, result, dec, snaps, length=None):
        if status == "r" and dec is None and (type(result) in _PLAIN or type(result) is int and -_BIG < result < _BIG):
            self.send(["r", result, [], [], length])  # the common case, without the encoder
            return
        try:
            seed = {id(o): ["A", n] for n, o in enumerate(dec.built)} if dec is not None and dec.built else None
            enc = self.encoder(seed)
            if status == "r":
                value = self.handle(result.obj) if type(result) is _Handle else enc.value(result)
            else:
                value = result
            changed = [[n, enc.content(o)] for n, o, snap in snaps if _snap(o) != snap]
            msg = [status, value, enc.drain(), changed, length]
        except BaseException as exc:  # the value would not convert (an agent __iter__ raised, say)
            msg = ["e", _exc_info(exc), [], [], None]
        self.send(msg)


_LEN_TYPES = {}


def _has_len(t):
    """Whether instances of the agent's class t define __len__ (builtin types never get here as handles)."""
    has = _LEN_TYPES.get(t)
    if has is None:
        has = _LEN_TYPES[t] = t.__module__ != "builtins" and any("__len__" in vars(k) for k in t.__mro__)
    return has


class _Handle:
    """A value to send as a handle even if it is an instance of a builtin subclass."""

    def __init__(self, obj):
        self.obj = obj


def _snap(o):
    """Contents of a mutable argument by identity (the snapshot also keeps the old items alive)."""
    if type(o) is bytearray:
        return bytes(o)
    items = [z for kv in o.items() for z in kv] if type(o) is dict else list(o)
    return _Same(items)


class _Same:
    __slots__ = ("items",)

    def __init__(self, items):
        self.items = items

    def __ne__(self, other):
        return len(self.items) != len(other.items) or any(a is not b for a, b in zip(self.items, other.items))

    def __eq__(self, other):
        return not self.__ne__(other)


def _to_list(obj):
    return list(obj)


_DUNDERS = {
    "len": len, "bool": bool, "iter": _to_list, "next": next,
    "contains": lambda obj, item: item in obj,
    "getitem": lambda obj, key: obj[key],
    "setitem": lambda obj, key, value: obj.__setitem__(key, value),
    "delitem": lambda obj, key: obj.__delitem__(key),
}


def _serve(filename, modname, rfd, wfd):
    global _SERVER
    _SERVER = _Server(rfd, wfd)
    if _WORK not in sys.path:
        sys.path.append(_WORK)  # appended, so agent files never shadow the stdlib
    try:
        import importlib.util
        spec = importlib.util.spec_from_file_location(modname, filename)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[modname] = mod
        spec.loader.exec_module(mod)
    except BaseException as exc:  # SystemExit from agent code is a crash too
        _SERVER.send(["e", _exc_info(exc), [], [], None])
        os._exit(0)
    _SERVER.send(["r", _SERVER.handle(mod), [], [], None])
    _SERVER.serve()


if _SERVING:
    _serve(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
