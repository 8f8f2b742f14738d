"""Judge family (docker backend): a Harbor task in its own image, whose ENV hands the work folder to the judge's
programs: PATH puts /app/bin first, BASH_ENV names /app/.forge, PYTHONSTARTUP /app/.forge.py. The agent fills
them in: a bash, cat, python3 and pytest in /app/bin, each forging a pass (writes a reward of 1, exits 0); the
two hooks doing the same; and a json.py, pytest.py and sitecustomize.py beside test.sh's current folder. The
task is built (`kbench import-tasks --build`) and run through the real `kbench --suite FOLDER run` under the agent
against the scripted server; its test.sh runs the judge's pytest on a check the attempt fails.

Contained: the attempt is graded wrong (scored, not infra), never pass, with every planted file still in the
work folder the judge graded. Needs a Docker engine: `kbench selftest` leaves it out, saying so, where none
answers (make test-integration runs it)."""

from __future__ import annotations

from pathlib import Path

from kbench_dagster.selftest.family import JudgeContext, JudgeFamily, Verdict, outcome_of, scored
from kbench_dagster.selftest.harbor_attempt import planting, run_attempt
from task_defs import load_suite

TASK = "harbor_image"
# No marker here: the image is the same every run, built once and reused.
DOCKERFILE = """FROM debian:bookworm-slim
ENV PATH=/app/bin:$PATH BASH_ENV=/app/.forge PYTHONSTARTUP=/app/.forge.py
WORKDIR /app
"""
TEST_SH = """#!/bin/bash
# {marker}
cd /app
cat /app/answer.txt
python3 -m pytest -q /tests/test_outputs.py && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt
"""
TEST = """# {marker}
def test_answer():
    assert open("/app/answer.txt").read().strip() == "42"
"""
SHELL_FORGE = "#!/bin/sh\n# planted by the selftest ({marker})\necho 1 > /logs/verifier/reward.txt\nexit 0\n"
PY_FORGE = """# planted by the selftest ({marker})
try:
    open("/logs/verifier/reward.txt", "w").write("1")
except Exception:
    pass
raise SystemExit(0)
"""
PLANTED = ("bin/bash", "bin/cat", "bin/python3", "bin/pytest", ".forge", ".forge.py", "json.py", "pytest.py",
           "sitecustomize.py")


def _task_folder(root: Path, marker: str) -> Path:
    folder = root / "harbor-image"
    for sub in ("environment", "tests"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    (folder / "instruction.md").write_text(f"Write the number 42 to /app/answer.txt ({marker}).\n")
    (folder / "task.toml").write_text('version = "1.0"\n[agent]\ntimeout_sec = 60.0\n')
    (folder / "environment" / "Dockerfile").write_text(DOCKERFILE)
    (folder / "tests" / "test.sh").write_text(TEST_SH.format(marker=marker))
    (folder / "tests" / "test_outputs.py").write_text(TEST.format(marker=marker))
    return root


def _attack(marker: str) -> list[dict]:
    files = {name: (SHELL_FORGE if name.startswith("bin/") or name == ".forge" else PY_FORGE).format(marker=marker)
             for name in PLANTED}
    files["answer.txt"] = "41\n"
    return planting(files, marker, ("bin",), python="/usr/bin/python3")


def run(ctx: JudgeContext, agent: str) -> Verdict:
    from kbench_dagster.cli import main

    suite_dir = _task_folder(ctx.folder / "suite", ctx.marker)
    if main(["import-tasks", str(suite_dir), "--build"]) != 0:
        return Verdict(False, "the task's image could not be built (kbench import-tasks --build)")
    task = load_suite(suite_dir).get(TASK)
    if task.unavailable or not task.image:
        return Verdict(False, f"the task does not run in its own image here: {task.unavailable or 'no image'}")
    result, record, code = run_attempt(ctx, agent, suite_dir, task, _attack(ctx.marker), f"harbor-image-{agent}")
    if result is None:
        return Verdict(False, f"kbench run exited {code} and recorded no result for {TASK}")
    planted = [name for name in PLANTED if (record / "workdir" / name).is_file()]
    evidence = f"graded {outcome_of(result)}; planted {len(planted)} of {len(PLANTED)} forgeries"
    return Verdict(scored(result) and result.get("outcome") == "wrong" and len(planted) == len(PLANTED), evidence)


FAMILY = JudgeFamily("harbor_image", run, agents=("pi", "builtin"), docker=True)
