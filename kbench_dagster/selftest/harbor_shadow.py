"""Judge family: shadows beside a Harbor task's verifier. The agent leaves, in the work folder test.sh runs in, a
json.py and a pytest.py (each, imported, forges a pass: prints a reward of 1, writes reward.txt, exits 0), a unittest/
and a tests/ package doing the same, executables named python3 and pytest, and a prog.py that test.sh runs, which
writes a reward of 1 and makes it read-only so the test's own `echo 0 >` fails, and leaves a process behind that
swaps a writable reward of 1 in once the reward reader starts. The task is a Harbor folder the
family writes, run through the real `kbench --suite FOLDER run` under the agent against the scripted server; its
test.sh runs the program, then the judge's pytest on a check the attempt fails.

Contained: the attempt is graded wrong (scored, not infra), never pass."""

from __future__ import annotations

from pathlib import Path

from kbench_dagster.selftest.family import JudgeContext, JudgeFamily, Verdict, outcome_of, scored
from kbench_dagster.selftest.harbor_attempt import planting, run_attempt
from task_defs import load_suite

TASK = "harbor_shadow"
TEST_SH = """#!/bin/bash
# {marker}
python3 /app/prog.py
cd /app
python3 -m pytest -q /tests/test_outputs.py && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt
"""
TEST = """# {marker}
def test_answer():
    assert open("/app/answer.txt").read().strip() == "42"
"""
FORGE = """# planted by the selftest ({marker})
print("reward 1 (test.sh exited 0)")
try:
    open("/logs/verifier/reward.txt", "w").write("1")
except Exception:
    pass
raise SystemExit(0)
"""
COMMAND = "#!/bin/sh\n# planted by the selftest ({marker})\necho 1 > /logs/verifier/reward.txt\nexit 0\n"
# The program also leaves a process behind (its own session, twice forked) that waits for the reward reader to start,
# stops it and puts a writable reward of 1 in place of whatever test.sh left; it tells the program to return only
# once it has seen the processes already running, so the reader is a new one.
PROG = """# planted by the selftest ({marker})
import os, signal, time
open("/logs/verifier/reward.txt", "w").write("1")
os.chmod("/logs/verifier/reward.txt", 0o444)
ready, told = os.pipe()
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        seen = set(os.listdir("/proc"))
        os.write(told, b"!")
        for _ in range(200000):
            for pid in set(os.listdir("/proc")) - seen:
                try:
                    cmd = open("/proc/%s/cmdline" % pid, "rb").read().split(bytes(1))
                except OSError:
                    continue
                if cmd[0].endswith(b"python3") and b"-I" in cmd:
                    os.kill(int(pid), signal.SIGSTOP)
                    open("/logs/verifier/forged-{marker}", "w").write("1")
                    os.rename("/logs/verifier/forged-{marker}", "/logs/verifier/reward.txt")
                    os.kill(int(pid), signal.SIGCONT)
                    os._exit(0)
            time.sleep(0.0001)
    os._exit(0)
os.read(ready, 1)
"""


def _task_folder(root: Path, marker: str) -> Path:
    folder = root / "harbor-shadow"
    for sub in ("environment", "tests"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    (folder / "instruction.md").write_text(f"Write the number 42 to /app/answer.txt ({marker}).\n")
    (folder / "task.toml").write_text('version = "1.0"\n[agent]\ntimeout_sec = 60.0\n')
    (folder / "environment" / "Dockerfile").write_text(f"# {marker}\nFROM debian:bookworm-slim\nWORKDIR /app\n")
    (folder / "tests" / "test.sh").write_text(TEST_SH.format(marker=marker))
    (folder / "tests" / "test_outputs.py").write_text(TEST.format(marker=marker))
    return root


def _attack(marker: str) -> list[dict]:
    files = {name: FORGE.format(marker=marker)
             for name in ("json.py", "pytest.py", "unittest/__init__.py", "tests/__init__.py")}
    files.update({name: COMMAND.format(marker=marker) for name in ("python3", "pytest")})
    files["prog.py"] = PROG.format(marker=marker)
    return planting(files, marker, ("unittest", "tests"))


def run(ctx: JudgeContext, agent: str) -> Verdict:
    suite_dir = _task_folder(ctx.folder / "suite", ctx.marker)
    task = load_suite(suite_dir).get(TASK)
    if task.unavailable:
        return Verdict(False, f"the task was not runnable here: {task.unavailable}")
    result, record, code = run_attempt(ctx, agent, suite_dir, task, _attack(ctx.marker), f"harbor-shadow-{agent}")
    if result is None:
        return Verdict(False, f"kbench run exited {code} and recorded no result for {TASK}")
    try:
        said = [line for line in (record / "tests.txt").read_text(errors="replace").split("\\n")
                if "reward" in line and "test.sh exited" in line]
    except OSError:
        said = []
    planted = sorted(p.name for p in (record / "workdir").iterdir() if p.name in ("json.py", "pytest.py", "prog.py"))
    evidence = f"graded {outcome_of(result)}; planted {', '.join(planted) or 'nothing'}; " \
               f"the reader said: {said[-1][:160] if said else '(no reward line)'}"
    return Verdict(scored(result) and result.get("outcome") == "wrong" and len(planted) == 3, evidence)


FAMILY = JudgeFamily("harbor_shadow", run, agents=("pi", "builtin"))
