"""Harbor / Terminal-Bench task folders as a suite: our own four fold into fixtures; three validate (untouched
fails, solve.sh passes) and run through the one loop (the scripted oracle passes them, null none), the one whose
image build fetches a package needs its own image and is skipped while no engine has it, never scored (its build
and runs: tests/test_harbor_images.py); nothing an agent leaves in the test or log
folders (a reward of 1, a replaced check, a symlink out of the work folder) reaches the verdict; a broken or unsafe
folder is refused naming the file."""

import json
import shutil
from pathlib import Path

import pytest

from kbench_dagster.cli import main
from sandbox.containers import task_images
from sandbox.engine.conditions import select_conditions
from sandbox.engine.scheduler import Scheduler
from sandbox.engine.spec import RunSpec
from sandbox.servers.scripted import ScriptedServer
from sandbox.tasks.grading import grade
from sandbox.tasks.validation import apply_reference, prepare_workdir, validate_tasks
from task_defs import load_suite
from task_defs.errors import TaskFileError
from task_defs.importers.harbor import LOGS, TESTS, load_harbor

OURS = Path(__file__).parent / "data" / "harbor_tasks"
RUNNABLE = {"csv_people_to_json", "repair_backup_script", "tally_log_levels"}
pytestmark = pytest.mark.usefixtures("imported_cache")


def copy_ours(tmp_path, name):
    dest = tmp_path / "src" / name
    shutil.copytree(OURS / name, dest)
    return dest


def test_our_folders_validate_and_the_image_task_is_skipped_without_its_image(tmp_path):
    suite = load_suite(OURS)
    assert set(suite.ids) == RUNNABLE | {"pinned_http_client"}
    results = {v.task_id: v for v in validate_tasks(list(suite.tasks), tmp_path / "v", workers=2)}
    assert {t for t, v in results.items() if v.status == "ok"} == RUNNABLE, results
    skipped = results["pinned_http_client"]
    assert skipped.status == "skipped" and "its image kbench-env/pinned-http-client:" in skipped.reason
    assert "no Docker engine answers" in skipped.reason, skipped.reason
    assert all(v.untouched.outcome == "wrong" for t, v in results.items() if t in RUNNABLE)


def test_the_oracle_passes_them_through_the_run_loop_and_null_none(tmp_path):
    suite = load_suite(OURS)
    for persona in ("oracle", "null"):
        got = []
        with ScriptedServer(persona=persona, suite=suite, port=0) as srv:
            spec = RunSpec(run_id=persona, model=srv.model_id, conds=select_conditions("base"),
                           tasks=list(suite.tasks), url=srv.url, agent="builtin", runs_root=tmp_path / "runs",
                           work_root=tmp_path / "work", workers=2, timeout_s=120)
            Scheduler(spec, suite, on_result=got.append).run()
        outcomes = {r["task"]: r["outcome"] for r in got}
        assert outcomes.pop("pinned_http_client") == "skipped"
        want = "pass" if persona == "oracle" else "wrong"
        assert outcomes == {t: want for t in RUNNABLE}, (persona, got)
        assert not any(r["infra"] for r in got)


def test_what_an_agent_leaves_in_the_test_and_log_folders_never_counts(tmp_path):
    suite = load_suite(OURS)
    task = suite.get("tally_log_levels")
    work = prepare_workdir(task, tmp_path / "w")
    (work / LOGS / "verifier").mkdir(parents=True)
    (work / LOGS / "verifier" / "reward.txt").write_text("1\n")  # a forged reward
    (work / TESTS).mkdir(parents=True, exist_ok=True)
    (work / TESTS / "check_levels.py").write_text("print('fine')\n")  # a forged check
    (work / TESTS / "test.sh").write_text("echo 1 > /logs/verifier/reward.txt\n")
    g = grade(task, work, output_path=tmp_path / "out.txt")
    assert g.outcome == "wrong" and "reward 0" in (tmp_path / "out.txt").read_text(), g

    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.rmtree(work / ".kbench-verifier")
    (work / ".kbench-verifier").symlink_to(outside)  # the mounted folders would land outside the work folder
    g = grade(task, work, output_path=tmp_path / "out2.txt")
    assert g.outcome == "wrong" and list(outside.iterdir()) == [], g
    assert (work / ".kbench-verifier").is_dir() and not (work / ".kbench-verifier").is_symlink()


@pytest.mark.parametrize("line, why", [
    ("RUN apt-get update && apt-get install -y jq", "fetches from the network"),
    ("RUN cd /tmp && git clone https://example.org/x.git", "fetches from the network"),
    ("ENV PATH=/opt/tools/bin:$PATH", "the system's own variable"),
    ("COPY service.log /etc/service.log", "outside the work folder"),
    ("ADD https://example.org/data.tgz ./", "fetches from the network"),
    ("FROM debian AS second\nCOPY --from=0 /app /app\nWORKDIR /app", "multi-stage"),
])
def test_what_the_hosts_system_cannot_give_makes_the_tasks_own_image(tmp_path, line, why):
    folder = copy_ours(tmp_path, "tally-log-levels")
    plain = load_harbor(folder)[1][0][0]
    assert plain.image is None and plain.workspace.files and plain.mounts["/app"] == "."
    with open(folder / "environment" / "Dockerfile", "a") as fh:
        fh.write(line + "\n")
    [(fx, _)] = load_harbor(folder)[1]
    assert fx.unavailable is None and fx.image.startswith("kbench-env/tally-log-levels:"), (why, fx)
    # the build lays WORKDIR: the work folder starts as the image left it, and the sessions see it at /app still
    assert fx.workspace.files == {} and fx.setup is None and fx.mounts["/app"] == "."


def test_a_broken_or_unsafe_folder_is_refused_naming_the_file(tmp_path):
    folder = copy_ours(tmp_path, "csv-people-to-json")
    (folder / "tests" / "test.sh").unlink()
    with pytest.raises(TaskFileError, match=r"tests/test\.sh.*missing"):
        load_harbor(folder)
    folder = copy_ours(tmp_path, "tally-log-levels")
    (folder / "tests" / "leak.txt").symlink_to("/etc/passwd")
    with pytest.raises(TaskFileError, match="leak.txt.*symlink"):
        load_harbor(folder)
    folder = copy_ours(tmp_path, "repair-backup-script")
    (folder / "task.toml").write_text("[agent]\ntimeout_sec = -3\n")
    with pytest.raises(TaskFileError, match=r"task\.toml.*agent\.timeout_sec"):
        load_harbor(folder)


def test_import_tasks_lists_each_task_and_writes_a_suite_file_that_loads_the_same(tmp_path, capsys):
    out = tmp_path / "harbor.json"
    assert main(["import-tasks", str(OURS), "--write", str(out), "--details"]) == 0
    said = capsys.readouterr()
    assert "pinned_http_client               not runnable here: needs its image built (kbench import-tasks --build)"\
        in said.out
    assert "     3  runnable here\n     1  needs its image built\n" in said.out
    assert "4 task folder(s)" in said.err and "3 runnable here, 1 not, 0 refused, 0 not read" in said.err
    doc = json.loads(out.read_text())
    assert {t["id"] for t in doc["tasks"]} == {"csv-people-to-json", "pinned-http-client", "repair-backup-script",
                                              "tally-log-levels"}
    assert load_suite(out).fingerprint == load_suite(OURS).fingerprint


def test_import_tasks_refuses_a_broken_folder_goes_on_and_tables_the_reasons(tmp_path, capsys):
    """A broken folder is refused with its file and field while the others are read; the table groups reasons
    without each task's details; a set with nothing runnable exits 1."""
    for name in ("tally-log-levels", "csv-people-to-json", "pinned-http-client"):
        copy_ours(tmp_path, name)
    (copy_ours(tmp_path, "repair-backup-script") / "task.toml").write_text("[agent]\ntimeout_sec = -3\n")
    steps = shutil.copytree(OURS / "csv-people-to-json", tmp_path / "src" / "in-steps")  # multi-step, no [[steps]]
    (steps / "steps" / "one").mkdir(parents=True)
    (steps / "instruction.md").rename(steps / "steps" / "one" / "instruction.md")
    (tmp_path / "src" / "bare").mkdir()
    (tmp_path / "src" / "bare" / "task.toml").write_text('version = "1.0"\n')  # no instruction anywhere
    for n, line in enumerate(["ENV DEBIAN_FRONTEND=noninteractive", "ENV LANG=C.UTF-8"]):
        env = shutil.copytree(OURS / "tally-log-levels", tmp_path / "src" / f"env-{n}")
        dockerfile = env / "environment" / "Dockerfile"
        dockerfile.write_text(dockerfile.read_text().replace("WORKDIR", f"{line}\nWORKDIR", 1))
    assert main(["import-tasks", str(tmp_path / "src")]) == 0
    said = capsys.readouterr()
    assert "     4  runnable here\n" in said.out  # ENV is the sessions' on the host's system too
    assert "     1  needs its image built\n" in said.out  # a RUN that fetches
    assert "     1  refused: task.toml agent.timeout_sec: a positive number of seconds\n" in said.out
    assert "4 runnable here, 1 not, 2 refused, 1 not read" in said.err and "--details names each" in said.err
    assert "     1  refused: task.toml steps: a multi-step task lists its steps as [[steps]] tables, in order\n" \
        in said.out
    assert "     1  a task.toml without instruction.md (nor steps/*/instruction.md)\n" in said.out
    assert main(["import-tasks", str(tmp_path / "src"), "--details"]) == 0
    assert "task.toml: field 'agent.timeout_sec'" in capsys.readouterr().out

    only_network = tmp_path / "none"
    shutil.copytree(OURS / "pinned-http-client", only_network / "pinned-http-client")
    assert main(["import-tasks", str(only_network)]) == 1  # nothing runnable: the command says so in its status
    assert "     0  runnable here" in capsys.readouterr().out



@pytest.mark.parametrize("performance, outcome", [(0, "wrong"), (1, "pass")])
def test_a_reward_of_several_dimensions_names_each_and_passes_only_when_all_are_met(tmp_path, performance, outcome):
    """Harbor's multi-reward verifiers write {"correctness": ..., "performance": ...} to reward.json: the verdict's
    evidence names each dimension with its value, and a pass needs every one at its maximum."""
    folder = copy_ours(tmp_path, "tally-log-levels")
    (folder / "tests" / "test.sh").write_text(
        "#!/bin/bash\nc=0\npython3 /tests/check_levels.py && c=1\n"
        f'echo "{{\\"correctness\\": $c, \\"performance\\": {performance}}}" > /logs/verifier/reward.json\n')
    task = load_suite(folder.parent).get("tally_log_levels")
    work = prepare_workdir(task, tmp_path / "w")
    apply_reference(task, work)
    g = grade(task, work, output_path=tmp_path / "out.txt")
    said = (tmp_path / "out.txt").read_text()
    assert g.outcome == outcome, (g, said)
    if outcome == "wrong":  # a failed case keeps the command's output: both dimensions, each with its value
        assert "reward correctness=1 performance=0" in said, said


def test_a_verifier_that_fetches_uv_and_pinned_pytest_runs_on_the_judges_pinned_tools(tmp_path):
    """The public verifiers' usual start (apt-get curl, astral's uv installer, `uvx --with pytest==8.4.1 --with
    pytest-json-ctrf==0.3.5 pytest --ctrf ...`): the bootstrap lines become no-ops, the pins are the judge's to
    install (once per set, from PyPI), and the task validates: untouched wrong, solve.sh passes, the report plugin
    wrote its file."""
    source = Path(__file__).parent / "data" / "harbor_pytest"
    [(fx, _)] = load_harbor(source)[1]
    assert fx.unavailable is None and fx.verifier_requires == ["pytest==8.4.1", "pytest-json-ctrf==0.3.5"]
    script = fx.verification.files[f"{TESTS}/test.sh"]
    assert "curl -LsSf" in script and all(line.startswith(": # kbench:") for line in script.splitlines()[2:6])
    suite = load_suite(source)
    task = suite.get("top_words")
    assert task.verifier_requires == fx.verifier_requires
    [v] = validate_tasks([task], tmp_path / "v", workers=1)
    assert v.status == "ok" and v.untouched.outcome == "wrong" and v.reference.outcome == "pass", v
    work = prepare_workdir(task, tmp_path / "w")
    apply_reference(task, work)
    assert grade(task, work).outcome == "pass"
    report = json.loads((work / LOGS / "verifier" / "ctrf.json").read_text())
    assert report["results"]["summary"]["passed"] == 2


def test_task_toml_settings_harbor_gives_a_task_reach_its_verifier_and_image(tmp_path):
    """[verifier] timeout_sec and env reach test.sh; [environment.env] is the image's (the task gets its own);
    an ENTRYPOINT makes the task's own image (its sessions run it first, as root), unless it runs a file of the work
    folder; MCP servers, which kbench does not start, make the task unavailable saying so."""
    folder = copy_ours(tmp_path, "tally-log-levels")
    toml = folder / "task.toml"
    base = 'version = "1.0"\n\n[agent]\ntimeout_sec = 300.0\n'
    toml.write_text(base + '\n[verifier]\ntimeout_sec = 45.0\n\n[verifier.env]\nLEVELS_STRICT = "yes"\n')
    (folder / "tests" / "test.sh").write_text(
        '#!/bin/bash\n[ "$LEVELS_STRICT" = yes ] && python3 /tests/check_levels.py '
        "&& echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt\n")
    task = load_suite(folder.parent).get("tally_log_levels")
    assert task.test_timeout == 45 and task.image is None
    [v] = validate_tasks([task], tmp_path / "v", workers=1)
    assert v.status == "ok" and v.reference.outcome == "pass", v  # the variable reached test.sh

    toml.write_text(base + '\n[environment.env]\nLEVELS_REGION = "eu"\n')
    [(fx, _)] = load_harbor(folder)[1]
    assert fx.image and fx.unavailable is None
    from task_defs.importers.harbor import image_recipe
    assert image_recipe(folder, fx.id).dockerfile.endswith('ENV LEVELS_REGION="eu"\n')

    toml.write_text(base + '\n[environment]\nmcp_servers = [{name = "files", command = "srv"}]\n')
    assert "MCP servers" in load_harbor(folder)[1][0][0].unavailable
    toml.write_text(base)
    dockerfile = folder / "environment" / "Dockerfile"
    plain = dockerfile.read_text()
    dockerfile.write_text(plain + 'ENTRYPOINT ["/usr/local/bin/start-services"]\n')
    [(fx, _)] = load_harbor(folder)[1]
    assert fx.image and fx.unavailable is None  # run as root before each session, in the task's own image
    dockerfile.write_text(plain + "ENTRYPOINT /bin/bash /app/start.sh\n")  # a file the agent can write: never
    assert "ENTRYPOINT runs /app/start.sh, a file of the work folder" in load_harbor(folder)[1][0][0].unavailable
    toml.write_text(base + '\n[verifier.env]\n"bad name" = 1\n')
    with pytest.raises(TaskFileError, match="verifier.env"):
        load_harbor(folder)


def test_a_suite_of_harbor_folders_leaves_a_broken_one_out_saying_so(tmp_path, capsys):
    for name in ("tally-log-levels", "csv-people-to-json"):
        copy_ours(tmp_path, name)
    (copy_ours(tmp_path, "repair-backup-script") / "task.toml").write_text("[agent]\ntimeout_sec = -3\n")
    suite = load_suite(tmp_path / "src")
    assert set(suite.ids) == {"tally_log_levels", "csv_people_to_json"}
    err = capsys.readouterr().err
    assert "left out of suite src" in err and "agent.timeout_sec" in err
    shutil.rmtree(tmp_path / "src" / "tally-log-levels")
    shutil.rmtree(tmp_path / "src" / "csv-people-to-json")
    with pytest.raises(TaskFileError, match="agent.timeout_sec"):  # nothing left: the refusal is the error
        load_suite(tmp_path / "src")


def test_the_hosts_system_keeps_dockers_meaning_for_env_and_a_copy_before_workdir(tmp_path):
    """ENV reaches every session of the task (setup, reference, verifier) on bwrap; a COPY to the work folder's
    path before the WORKDIR that names it lands in the work folder, as Docker would have it."""
    folder = copy_ours(tmp_path, "tally-log-levels")
    dockerfile = folder / "environment" / "Dockerfile"
    lines = dockerfile.read_text().splitlines()
    copies = [ln for ln in lines if ln.startswith("COPY")]
    rest = [ln for ln in lines if not ln.startswith("COPY")]
    absolute = [ln.replace(" ./", " /app/").replace(" .", " /app/") for ln in copies]
    dockerfile.write_text("\n".join([rest[0], 'ENV LEVEL_TAG="tally run" LANG=C.UTF-8', *absolute, *rest[1:],
                                     "RUN echo \"$LEVEL_TAG\" > tag.txt"]) + "\n")
    (folder / "tests" / "test.sh").write_text(
        '#!/bin/bash\n[ "$LEVEL_TAG" = "tally run" ] && [ "$(cat /app/tag.txt)" = "tally run" ] '
        "&& python3 /tests/check_levels.py && echo 1 > /logs/verifier/reward.txt "
        "|| echo 0 > /logs/verifier/reward.txt\n")
    [(fx, _)] = load_harbor(folder)[1]
    assert fx.image is None and fx.unavailable is None and fx.env == {"LEVEL_TAG": "tally run"}, fx
    assert "service.log" in fx.workspace.files
    [v] = validate_tasks(list(load_suite(folder.parent).tasks), tmp_path / "v", workers=1)
    assert v.status == "ok" and v.untouched.outcome == "wrong" and v.reference.outcome == "pass", v


def test_a_task_without_a_reference_is_not_proven_but_still_runs(tmp_path):
    """Datasets made for training ship no solution/: validate fails it saying it cannot prove the verifier (rather
    than "the reference gets wrong"), and the task still runs and is graded."""
    folder = copy_ours(tmp_path, "tally-log-levels")
    shutil.rmtree(folder / "solution")
    [v] = validate_tasks(list(load_suite(folder.parent).tasks), tmp_path / "v", workers=1)
    assert v.status == "fail" and v.reason.startswith("no reference solution"), v
    task = load_suite(folder.parent).get("tally_log_levels")
    assert grade(task, prepare_workdir(task, tmp_path / "w")).outcome == "wrong"


@pytest.mark.parametrize("base, stand_in", [("ubuntu:24.04", "kbench-env-base:"),
                                            ("ghcr.io/laude-institute/t-bench/ubuntu-24-04:20250624",
                                             "kbench-env-base:"),
                                            ("python:3.13-slim-bookworm", "kbench-env-python:"),
                                            ("docker.io/library/debian:bookworm", "kbench-env-base:")])
def test_the_bases_a_build_cannot_pull_are_given_a_local_stand_in(tmp_path, base, stand_in):
    (tmp_path / "Dockerfile").write_text(f"FROM {base} AS build\nENV PATH=/opt/x:$PATH\n")
    rec = task_images.recipe(tmp_path, "t")
    assert rec.dockerfile.startswith(f"FROM {stand_in}") and rec.dockerfile.rstrip().endswith("$PATH")
    assert rec.stand_ins == (f"{base} -> {rec.dockerfile.split()[1]}",) and not rec.network
    (tmp_path / "Dockerfile").write_text("FROM alpine:3.20\n")
    assert task_images.recipe(tmp_path, "t").stand_ins == ()  # no stand-in: the engine must hold it already


@pytest.mark.parametrize("name", ["BASH_ENV", "ENV", "LD_PRELOAD", "PYTHONPATH", "NODE_OPTIONS", "PATH", "GIT_DIR",
                                  "PYTEST_ADDOPTS"])
def test_a_variable_that_makes_a_program_load_a_file_is_never_a_tasks_to_set(tmp_path, name):
    """Such a variable pointing into the work folder would make the judge's own shell or interpreter run what the
    agent left there: a task may not set it for its sessions, and a Dockerfile that does needs its own image,
    whose containers empty it where it names a writable place (tests/test_harbor_images.py)."""
    from pydantic import ValidationError

    from task_defs.models import Task

    with pytest.raises(ValidationError, match=f"env '{name}'"):
        Task(id="t", title="title", category="terminal", tier="terminal", prompt="p", env={name: "/app/x"})
    folder = copy_ours(tmp_path, "tally-log-levels")
    with open(folder / "environment" / "Dockerfile", "a") as fh:
        fh.write(f"ENV {name}=/app/.hook\n")
    [(fx, _)] = load_harbor(folder)[1]
    assert fx.env == {} and fx.image, fx


def test_validate_fails_when_nothing_was_validated_and_with_strict_when_anything_was_skipped(tmp_path, capsys):
    """A suite whose one image task has no engine here: validate exits 1, saying nothing was validated; beside a
    task that validates it exits 0, and 1 with --strict."""
    copy_ours(tmp_path, "pinned-http-client")
    work = ["--work", str(tmp_path / "w")]
    assert main(["--suite", str(tmp_path / "src"), "validate", *work]) == 1
    assert "nothing was validated: every task was skipped" in capsys.readouterr().err
    copy_ours(tmp_path, "tally-log-levels")
    assert main(["--suite", str(tmp_path / "src"), "validate", *work]) == 0
    assert main(["--suite", str(tmp_path / "src"), "validate", "--strict", *work]) == 1
    assert "1 ok, 0 failed, 1 skipped of 2 tasks" in capsys.readouterr().out
