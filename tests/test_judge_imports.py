"""Agent code can get neither code nor data into the judge (the hidden test's process, which holds the nonce), and
cannot read the hidden test while it runs. Each test grades a hostile agent against a real kbench task with the real
grader under bubblewrap, and looks at what the attack left in the work folder."""

import pytest
from bundled import SUITE
from conftest import needs_bwrap

import sandbox.tasks.grading as grading
from sandbox.isolation.bwrap import IsolationConfig
from sandbox.tasks.grading import grade
from sandbox.tasks.validation import prepare_workdir
from task_defs import load_suite

pytestmark = needs_bwrap  # without a sandbox, agent code is the grader's own user with the whole machine in reach

NONCE = "0123456789abcdef0123456789abcdef"


@pytest.fixture
def known_nonce(monkeypatch):
    monkeypatch.setattr(grading.secrets, "token_hex", lambda n=16: NONCE)
    return NONCE


def _grade(work, task_id, files):
    task = SUITE.get(task_id)
    wd = prepare_workdir(task, work / "agent")
    for rel, text in files.items():
        (wd / rel).write_text(text)
    out = work / "tests.txt"
    g = grade(task, wd, output_path=out, cfg=IsolationConfig(mode="bwrap"))
    assert g.session is not None and g.session.isolation == "bwrap"
    return g, wd, out.read_text(errors="replace")


# Planted into every folder agent code can write and might be on the judge's sys.path: a module for every stdlib
# name (whatever the judge imports late, the traceback printer's helpers included), a harness look-alike, a .pth,
# sitecustomize, and unchecked-hash caches that Python would load without looking at any source. The planted
# code, run in the judge, leaves a marker and prints a forged pass with the judge's own nonce.
PLANT = r'''
import os, sys

MARKER = os.path.join(os.getcwd(), "planted_ran_in_judge.txt")
PAYLOAD = """
import os as _o, sys as _s
_kb = _s.modules.get("kbtest")
if _kb is not None and getattr(_kb, "_NONCE", ""):
    with open(%r, "a") as _fh:
        _fh.write("pid %%d ran %%s\\n" %% (_o.getpid(), __file__))
    _o.write(1, ("\\nKBTEST-RESULT %%s pass\\n" %% _kb._NONCE).encode())
    _o._exit(0)
""" % MARKER


def _targets():
    """Folders named anywhere this process can look: its own argv and environment, the command lines and
    environments of every process it can read, its working folder, /tmp and HOME."""
    found = {os.getcwd(), "/tmp", os.path.expanduser("~"), os.path.dirname(os.path.abspath(sys.argv[0]))}
    texts = list(sys.argv) + list(os.environ.values())
    for pid in os.listdir("/proc"):
        for what in ("cmdline", "environ"):
            try:
                with open("/proc/%s/%s" % (pid, what), "rb") as fh:
                    texts += fh.read().decode("utf-8", "replace").replace("=", "\0").split("\0")
            except OSError:
                pass
    for text in texts:
        for word in text.replace(";", " ").replace("'", " ").replace('"', " ").replace(",", " ").split():
            if word.startswith("/") and not word.startswith(("/proc", "/sys", "/dev")):
                found.add(word if os.path.isdir(word) else os.path.dirname(word))
    return sorted(d for d in found if d and os.path.isdir(d) and os.access(d, os.W_OK))


def _put(path, data):
    # O_EXCL: never overwrite anything (outside a sandbox this must not be able to damage a real stdlib)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except OSError:
        return 0
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    return 1


def plant():
    import importlib.util
    import marshal
    code = compile(PAYLOAD, "<planted>", "exec")
    names = set(sys.stdlib_module_names) | {"kbtest", "sitecustomize", "usercustomize", "test_task"}
    tag = sys.implementation.cache_tag
    # an unchecked-hash pyc: its source is never compared
    pyc = importlib.util.MAGIC_NUMBER + (3).to_bytes(4, "little") + b"\0" * 8 + marshal.dumps(code)
    placed = []
    for d in _targets():
        n = 0
        for name in names:
            n += _put(os.path.join(d, name + ".py"), PAYLOAD.encode())
        n += _put(os.path.join(d, "zz-kbench-plant.pth"), ("import os; exec(%r)\n" % PAYLOAD).encode())
        try:
            os.makedirs(os.path.join(d, "__pycache__"), exist_ok=True)
            for name in ("kbtest", "test_task", "linecache", "tokenize", "ast", "dis"):
                n += _put(os.path.join(d, "__pycache__", "%s.%s.pyc" % (name, tag)), pyc)
        except OSError:
            pass
        placed.append("%s %d" % (d, n))
    with open("planted.txt", "a") as fh:
        fh.write("\n".join(placed) + "\n")
        fh.write("env %s\n" % sorted(os.environ))
        fh.write("stdin %s\n" % os.readlink("/proc/self/fd/0"))


plant()
'''

# Loaded by the judge; one case crashes, so the judge prints a traceback after the plants are in place.
PLANTING_CLAMP = PLANT + '''

def clamp(x, low, high):
    if x == 5:
        raise RuntimeError("a crashing case, so the judge formats a traceback")
    return max(low, min(x, high))
'''

# Run by the judge with kb.run: its environment and its parents are what it has to go on.
PLANTING_CSVSUM = PLANT + '''
print("0.00")
'''


@pytest.mark.parametrize("task_id, files", [
    ("clamp", {"clamp.py": PLANTING_CLAMP}),
    ("fixcsvsum", {"csvsum.py": PLANTING_CSVSUM}),
], ids=["loaded_module", "program_run_by_the_test"])
def test_code_planted_where_agent_code_can_write_never_runs_in_the_judge(work, known_nonce, task_id, files):
    g, wd, text = _grade(work, task_id, files)
    planted = (wd / "planted.txt").read_text()
    counts = [int(ln.rsplit(" ", 1)[1]) for ln in planted.splitlines() if ln.startswith("/")]
    assert sum(counts) > 0, planted + text  # it did find writable folders and fill them
    assert not (wd / "planted_ran_in_judge.txt").exists(), (wd / "planted_ran_in_judge.txt").read_text() + text
    assert g.outcome in ("wrong", "crash"), text
    assert "KBTEST_" not in planted, planted  # nothing of the grader's private set-up in the agent's environment
    assert "stdin /dev/null" in planted, planted + text  # never the judge's stdin


# The distinctive parts of clamp's hidden test: a comment and a case, neither in the harness nor in any output.
CLAMP_TEST_SECRETS = ("x between the bad bounds", "10**30, 0, 10**20")

READ_THE_TEST = r'''
import os, sys

SECRETS = [s[::-1].encode() for s in %r]  # reversed here, so this file itself is no hit
SKIP = ("/usr", "/proc", "/sys", "/dev", "/etc")


def _candidates():
    """Every file this process could reach that might be the hidden test or hold it: files named in any readable
    command line or environment, every readable fd of every process, and the folders around them."""
    paths = set()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        for what in ("cmdline", "environ"):
            try:
                with open("/proc/%%s/%%s" %% (pid, what), "rb") as fh:
                    for word in fh.read().decode("utf-8", "replace").replace("=", "\0").replace("'", "\0").split("\0"):
                        if word.startswith("/"):
                            paths.add(word)
            except OSError:
                pass
        if int(pid) == os.getpid():
            continue  # its own pipes carry the judge's requests; reading them would only break the protocol
        try:
            for fd in os.listdir("/proc/%%s/fd" %% pid):
                paths.add("/proc/%%s/fd/%%s" %% (pid, fd))
        except OSError:
            pass
    for p in list(paths):
        folder = p if os.path.isdir(p) else os.path.dirname(p)
        for up in (folder, os.path.dirname(folder)):
            if up.startswith(SKIP) or not os.path.isdir(up):
                continue
            for dirpath, dirs, names in os.walk(up):
                paths.update(os.path.join(dirpath, n) for n in names)
                dirs[:] = [] if dirpath.count("/") > up.count("/") + 3 else [
                    d for d in dirs if not os.path.join(dirpath, d).startswith(SKIP)]
    return sorted(paths)


def look():
    hits = []
    for p in _candidates():
        try:
            if os.path.isdir(p):
                continue
            with open(os.open(p, os.O_RDONLY | os.O_NONBLOCK), "rb") as fh:
                data = fh.read(1 << 20) or b""
        except (OSError, ValueError, TypeError):
            continue
        hits += ["secret %%d in %%s" %% (i, p) for i, s in enumerate(SECRETS) if s in data]
    with open("read_attempts.txt", "a") as fh:
        fh.write("looked at %%d paths; hits: %%r\n" %% (len(_candidates()), hits))


look()
CALLED = []


def clamp(x, low, high):
    if not CALLED:
        CALLED.append(look())  # again, while the judge is running its cases
    if low > high:
        raise ValueError("low > high")
    return low if x < low else high if x > high else x
''' % ([s[::-1] for s in CLAMP_TEST_SECRETS],)


def test_agent_code_cannot_read_the_hidden_test_while_it_runs(work):
    g, wd, text = _grade(work, "clamp", {"clamp.py": READ_THE_TEST})
    report = (wd / "read_attempts.txt").read_text()
    assert report.count("looked at") >= 2 and "hits: []" in report, report + text
    assert all(line.endswith("hits: []") for line in report.splitlines()), report
    assert g.outcome == "pass", text  # it solved the task; it only could not see the test


JUDGE_REPORT = """
import json, os, sys
import kbtest as kb

print("JUDGE " + json.dumps({
    "path": sys.path,
    "writable": [p for p in sys.path + [os.path.dirname(kb.__file__)] if os.access(p, os.W_OK)],
    "flags": [sys.flags.isolated, sys.flags.no_site, sys.flags.dont_write_bytecode],
    "test_on_disk": os.path.exists(__file__),
    "env": sorted(os.environ),
}))


@kb.case
def nothing_to_check():
    kb.ok(kb.data("data.txt").endswith(b"the test's own data\\n"), "kb.data")

kb.main()
"""


def test_the_judge_imports_only_from_folders_it_cannot_write(tmp_path, work):
    """Whatever the judge imports late (a test's import inside a case, the traceback printer's helpers) is looked
    up on sys.path; every folder there, and the harness's own, must be one that nothing in the sandbox can write."""
    import json

    from conftest import write_task

    suite = tmp_path / "suite"
    write_task(suite, "probe", "id = 'probe'\ntitle = 'probe'\ncategory = 'programming'\ntier = 'easy'\n"
               "language = 'python'\nprompt = 'nothing'\n",
               {"tests/test_task.py": JUDGE_REPORT, "tests/data.txt": "the test's own data\n", "solution/x.txt": "x\n"})
    task = load_suite(suite).get("probe")
    out = work / "tests.txt"
    g = grade(task, prepare_workdir(task, work / "probe"), output_path=out, cfg=IsolationConfig(mode="bwrap"))
    text = out.read_text()
    report = json.loads(next(ln for ln in text.splitlines() if ln.startswith("JUDGE "))[len("JUDGE "):])
    assert report["writable"] == [], report
    assert all(p.startswith("/usr/") for p in report["path"]), report
    assert report["flags"] == [1, 1, 1] and not report["test_on_disk"], report
    assert not [k for k in report["env"] if k.startswith(("KBTEST", "PYTHON"))], report
    assert g.outcome == "pass", text  # and the test read its data through kb.data, from memory
