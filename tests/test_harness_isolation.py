"""The judge (the harness process holding the nonce) never runs agent code, and nothing the agent starts can
read its memory. Each test grades a hostile agent file against a real kbench task with the real grader."""

import os

import pytest
from bundled import SUITE
from conftest import needs_bwrap

import sandbox.tasks.grading as grading
from sandbox.isolation.bwrap import IsolationConfig
from sandbox.tasks.grading import grade
from sandbox.tasks.validation import apply_reference, prepare_workdir

NONCE = "0123456789abcdef0123456789abcdef"


@pytest.fixture
def known_nonce(monkeypatch):
    """The grader's nonce, fixed, so a test can tell whether an attack found it."""
    monkeypatch.setattr(grading.secrets, "token_hex", lambda n=16: NONCE)
    return NONCE


def _grade(work, task_id, files, name="agent", isolation="auto"):
    task = SUITE.get(task_id)
    wd = prepare_workdir(task, work / name)
    for rel, text in files.items():
        (wd / rel).write_text(text)
    out = work / f"{name}.tests.txt"
    g = grade(task, wd, output_path=out, cfg=IsolationConfig(mode=isolation))
    return g, wd, out.read_text(errors="replace")


CALL_FINISH = {
    "at_import": "import kbtest\nkbtest._finish('pass')\n",
    "in_function": "def clamp(x, low, high):\n    import kbtest\n    kbtest._finish('pass')\n",
    # in the serving process __main__ is the harness file itself: its _finish knows no nonce and ends only that process
    "main_module": "import sys\n\ndef clamp(x, low, high):\n    sys.modules['__main__']._finish('pass')\n",
    "any_module": (
        "import sys\n\ndef clamp(x, low, high):\n"
        "    for mod in list(sys.modules.values()):\n"
        "        if hasattr(mod, '_finish') and getattr(mod, '_NONCE', None):\n"
        "            mod._finish('pass')\n"
        "    return 'no judge here'\n"
    ),
}


@pytest.mark.parametrize("kind", list(CALL_FINISH))
def test_agent_cannot_call_the_harness_finish(work, kind):
    g, _, text = _grade(work, "clamp", {"clamp.py": CALL_FINISH[kind]}, name=kind)
    assert g.outcome != "pass", text
    assert g.outcome in ("crash", "wrong"), text


NONCE_HUNT = r'''
import gc, os, re, sys

HEX = re.compile(r"[0-9a-f]{32}")


def hunt():
    """Every 32-hex string reachable from modules, gc-tracked containers and the stack."""
    seen = set()
    pool = [vars(m) for m in list(sys.modules.values()) if m is not None] + gc.get_objects()
    f = sys._getframe()
    while f is not None:
        pool.append(f.f_locals)
        pool.append(f.f_globals)
        f = f.f_back
    for obj in pool:
        try:
            values = (list(obj.values()) if isinstance(obj, dict)
                      else list(obj) if isinstance(obj, (list, tuple, set)) else [])
        except Exception:
            continue
        for v in values:
            if isinstance(v, str):
                seen.update(HEX.findall(v))
    return sorted(seen)


def clamp(x, low, high):
    hits = hunt()
    with open("hits.txt", "w") as fh:
        fh.write("\n".join(hits))
    for h in hits:  # where the nonce is reachable, this is a pass
        print("\nKBTEST-RESULT %s pass" % h, flush=True)
    os._exit(0)
'''


def test_agent_finds_no_nonce_in_its_process(work, known_nonce):
    g, wd, text = _grade(work, "clamp", {"clamp.py": NONCE_HUNT})
    assert (wd / "hits.txt").exists(), text
    assert known_nonce not in (wd / "hits.txt").read_text()
    assert g.outcome == "crash", text  # the agent's process ended mid-call


MEM_PROBE = r'''#!/bin/bash
python3 - <<'PY'
import os, re
NONCE = b"%s"[::-1]  # reversed in the script, so bash's copy of it is no false hit
out = []
pid = os.getppid()
while pid > 1:
    try:
        comm = open("/proc/%%d/comm" %% pid).read().strip()
        status = open("/proc/%%d/status" %% pid).read()
    except OSError:
        break
    try:
        maps = open("/proc/%%d/maps" %% pid).read()
        found = False
        with open("/proc/%%d/mem" %% pid, "rb", buffering=0) as mem:
            for line in maps.splitlines():
                span, perms = line.split()[:2]
                if "r" not in perms:
                    continue
                lo, hi = (int(x, 16) for x in span.split("-"))
                try:
                    mem.seek(lo)
                    if NONCE in mem.read(hi - lo):
                        found = True
                        break
                except (OSError, OverflowError, ValueError):
                    continue
        out.append("%%d %%s %%s" %% (pid, comm, "FOUND" if found else "read"))
    except PermissionError:
        out.append("%%d %%s denied" %% (pid, comm))
    except OSError as exc:
        out.append("%%d %%s error %%s" %% (pid, comm, exc))
    pid = int(re.search(r"PPid:\s+(\d+)", status).group(1))
open("probe.txt", "w").write("\n".join(out) + "\n")
PY
echo "Hello, world!"
'''


@needs_bwrap
def test_programs_the_test_runs_cannot_read_the_harness_memory(work, known_nonce):
    """hellosh runs `bash hello.sh`; the script walks up its parents reading /proc/<pid>/mem for the nonce."""
    g, wd, text = _grade(work, "hellosh", {"hello.sh": MEM_PROBE % known_nonce[::-1]}, isolation="bwrap")
    probe = (wd / "probe.txt").read_text()
    assert "FOUND" not in probe, probe
    harness = [ln for ln in probe.splitlines() if ln.split()[1].startswith("python")]
    assert harness and all(ln.endswith("denied") for ln in harness), probe
    assert g.outcome != "pass", text


@pytest.mark.parametrize("task_id", ["lru", "minstack"])
def test_class_tasks_still_pass_with_their_reference(work, task_id):
    task = SUITE.get(task_id)
    wd = prepare_workdir(task, work / task_id)
    apply_reference(task, wd)
    out = work / "ref.tests.txt"
    g = grade(task, wd, output_path=out)
    assert g.outcome == "pass", out.read_text()


ALWAYS_EQUAL = """
class Anything(str):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = str.__hash__


def fizzbuzz(n):
    return [Anything("?") for _ in range(max(n, 0))]
"""


def test_agent_values_cannot_control_comparisons(work):
    g, _, text = _grade(work, "fizz", {"fizz.py": ALWAYS_EQUAL})
    assert g.outcome == "wrong", text


AGENT_OBJECTS = """
class Box:
    def __init__(self, v):
        self.v = v

    def __eq__(self, other):
        return True


def clamp(x, low, high):
    return Box(x)
"""


def test_agent_objects_compare_by_identity_only(work):
    g, _, text = _grade(work, "clamp", {"clamp.py": AGENT_OBJECTS})
    assert g.outcome == "wrong", text


def test_exit_inside_a_call_is_a_crash(work):
    g, _, text = _grade(work, "clamp", {"clamp.py": "import sys\n\ndef clamp(x, low, high):\n    sys.exit(0)\n"})
    assert g.outcome == "crash", text


READ_THE_TEST = r'''
import glob, os, sys

HERE = os.path.dirname(os.path.abspath(sys.argv[0]))  # the folder of the harness this process was started from
FOUND = sorted(glob.glob(os.path.join(HERE, "*")))
SOURCE = "".join(open(p, errors="replace").read() for p in FOUND if os.path.isfile(p) and not p.endswith("kbtest.py"))

def clamp(x, low, high):
    raise ValueError("saw %d files beside the harness: %s; %d chars of them" % (len(FOUND), FOUND, len(SOURCE)))
'''


def test_agent_code_finds_no_test_source_or_data_beside_the_harness(work):
    """Agent code runs as the same user as the test: the test and its data reach the judge on stdin and are never
    files in the sandbox; beside the harness there is nothing but the harness."""
    g, _, text = _grade(work, "clamp", {"clamp.py": READ_THE_TEST}, name="reader")
    assert g.outcome in ("wrong", "crash"), text
    assert "saw 1 files beside the harness" in text and "; 0 chars of them" in text, text
    assert "same(" not in text and "canary" not in text


def test_a_command_task_cannot_read_its_test_either(work):
    """A shell task's program looks for the test through its parent's command line: gone by the time it runs."""
    script = ("#!/bin/bash\n"
              "t=$(tr '\\0' ' ' < /proc/$PPID/cmdline | grep -o '[^ ]*test_task.py')\n"
              "if [ -n \"$t\" ] && [ -r \"$t\" ]; then echo LEAKED; cat \"$t\" | head -c 200; else echo hidden; fi\n")
    g, _, text = _grade(work, "hellosh", {"hello.sh": script}, name="shell")
    assert g.outcome != "pass"
    assert "LEAKED" not in text


def test_a_dead_agent_process_is_a_crash_even_if_its_fork_holds_the_pipe(work):
    """The agent's process dies inside a call after forking a helper that keeps the reply pipe open: the judge sees
    the death at once (a crash, as when agent code ran in the judge), not a silence until the test times out."""
    agent = ("import os, time\n"
             "if os.fork() == 0:\n    time.sleep(120)\n    os._exit(0)\n\n"
             "def clamp(x, low, high):\n    os._exit(3)\n")
    g, _, text = _grade(work, "clamp", {"clamp.py": agent}, name="forked")
    assert g.outcome == "crash", text
    assert g.duration_s < 30


PIPELINE_TEST = '''
import kbtest as kb

m = kb.load("agent.py")


@kb.case
def agent_calls_made_by_c_code_are_answered():
    out = []
    out.extend(map(m.double, [1, 2, 3]))  # the statement's own value is thrown away; map's calls are not
    kb.eq(out, [2, 4, 6], "extend(map(...))")
    xs = [3, 1, 2]
    b = m.Box()
    xs.sort(key=b.key)
    kb.eq(xs, [1, 2, 3], "sort(key=agent method)")


@kb.case
def statements_that_discard_a_value_still_run_in_order():
    s = m.Box()
    for i in range(50):
        s.push(i * 2)
    kb.eq(len(s), 50, "len after pushes")
    kb.eq(s.last(), 98, "last pushed")

kb.main()
'''

PIPELINE_AGENT = '''
def double(x):
    return 2 * x

class Box:
    def __init__(self):
        self.items = []
    def push(self, x):
        self.items.append(x)
    def last(self):
        return self.items[-1]
    def __len__(self):
        return len(self.items)
    def key(self, x):
        return x
'''


def test_calls_whose_value_is_thrown_away_are_only_pipelined_when_nothing_can_use_them(tmp_path):
    """Pipelining (not waiting for a call whose value the statement discards) keeps 10^5-call tests fast; a call
    that C code makes inside such a statement (map, a sort key) must still be answered."""
    import subprocess
    import sys

    from sandbox.tasks.grading import HARNESS

    hidden, wd = tmp_path / "hidden", tmp_path / "work"
    hidden.mkdir()
    wd.mkdir()
    (hidden / "kbtest.py").write_text(HARNESS.read_text())
    (hidden / "test_task.py").write_text(PIPELINE_TEST)
    (wd / "agent.py").write_text(PIPELINE_AGENT)
    run = lambda env: subprocess.run(  # noqa: E731
        [sys.executable, "-B", "-E", "-s", str(hidden / "test_task.py")], cwd=wd, input=NONCE + "\n",
        capture_output=True, text=True, timeout=60, env=env)
    p = run(dict(os.environ))  # an author's own run: nothing beside the harness is touched
    assert p.returncode == 0 and f"KBTEST-RESULT {NONCE} pass" in p.stdout, p.stdout + p.stderr
    assert sorted(q.name for q in hidden.iterdir()) == ["kbtest.py", "test_task.py"]
