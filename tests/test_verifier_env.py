"""A Harbor test.sh's network bootstrap, read and stood in for (sandbox/judge/verifier_env.py, verifier_script.py):
the pins it asks for are collected, its bootstrap lines become no-ops with the line numbers kept, what still fetches
is named, and the judge's pinned tools folder (installed from PyPI once per set) runs the script's `uvx ... pytest`
with the system's python3, its plugins named, and no work-folder module standing in for a tool."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from sandbox.judge import commands, verifier_env
from sandbox.judge.verifier_env import VerifierEnvError, read_test_script, tools_for

SYSTEM_PYTHON = Path("/usr/bin/python3")
PINS = ["pytest==8.4.1", "pytest-json-ctrf==0.3.5"]
FORGE = "import os\nos._exit(0)\n"  # imported, it ends its process with success


def sh(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def replaced(script: str) -> list[int]:
    return [n for n, line in enumerate(script.split("\n"), 1) if line.lstrip().startswith(": # kbench: ")]


def bash_parses(script: str, tmp_path: Path) -> None:
    path = tmp_path / "parsed.sh"
    path.write_text(script)
    done = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


STANDARD = sh("""
    #!/bin/bash
    apt-get update
    apt-get install -y curl
    curl -LsSf https://astral.sh/uv/0.9.7/install.sh | sh
    source $HOME/.local/bin/env
    # the tests (don't edit)
    uvx \\
      --with pytest==8.4.1 \\
      --with pytest-json-ctrf==0.3.5 \\
      pytest --ctrf /logs/verifier/ctrf.json /tests/test_state.py -rA
    if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi
    """)


def test_the_standard_shape_keeps_its_tests_and_loses_its_bootstrap(tmp_path):
    got = read_test_script(STANDARD)
    assert got.requirements == tuple(PINS)
    assert got.fetches is None and got.python is None
    before, after = STANDARD.split("\n"), got.script.split("\n")
    assert len(after) == len(before) and replaced(got.script) == [2, 3, 4, 5]
    assert after[1] == ": # kbench: apt-get update -- replaced: the judge provides the pinned tools"
    # every other line byte for byte, the uvx command's continuation lines included
    assert [a for n, a in enumerate(after, 1) if n not in (2, 3, 4, 5)] == \
           [b for n, b in enumerate(before, 1) if n not in (2, 3, 4, 5)]
    bash_parses(got.script, tmp_path)


@pytest.mark.parametrize("text, requirements, python, lines", [
    # uvx's short options, a Python asked for, the tool itself pinned
    (sh("""
        #!/bin/bash
        apt-get update && apt-get install -y --no-install-recommends curl ca-certificates
        curl -LsSf https://astral.sh/uv/0.7.13/install.sh | sh && . "$HOME/.local/bin/env"
        uvx -p 3.13 -w pytest==8.4.1 -w requests==2.32.3 pytest /tests/test_outputs.py -rA
        """), ("pytest==8.4.1", "requests==2.32.3"), "3.13", [2, 3]),
    # uv run with --with=, a venv made and entered, pins installed into it
    (sh("""
        #!/bin/bash
        set -e
        uv venv .tbench-testing --python 3.12
        source .tbench-testing/bin/activate
        uv pip install --system pytest==8.4.1 pytest-json-ctrf==0.3.5
        uv run --with=pytest==8.4.1 --with=pyyaml==6.0.2 pytest --ctrf /logs/verifier/ctrf.json /tests/test_x.py
        """), ("pytest==8.4.1", "pytest-json-ctrf==0.3.5", "pyyaml==6.0.2"), "3.12", [3, 4, 5]),
    # plain pip, pip itself and uv upgraded first; an unpinned name kept as it is
    (sh("""
        #!/bin/sh
        DEBIAN_FRONTEND=noninteractive apt-get -qq update > /dev/null 2>&1
        apt-get install -y python3-pip
        python3 -m pip install --upgrade pip uv
        pip3 install --break-system-packages --no-cache-dir \\
            pytest==8.4.1 \\
            numpy
        python3 -m pytest /tests/test_outputs.py
        """), ("pytest==8.4.1", "numpy"), None, [2, 3, 4, 5, 6, 7]),
    # the tool pinned with @, other uv flags skipped; an unpinned tool is not a requirement
    (sh("""
        wget -qO- https://astral.sh/uv/install.sh | env UV_INSTALL_DIR=/usr/local/bin sh
        uvx --isolated --from pytest==8.4.1 pytest -q /tests/a.py
        uvx pytest@8.3.5 -q /tests/b.py
        uvx --with pytest-timeout==2.3.1 pytest -q /tests/c.py
        """), ("pytest==8.4.1", "pytest==8.3.5", "pytest-timeout==2.3.1"), None, [1]),
])
def test_other_shapes(tmp_path, text, requirements, python, lines):
    got = read_test_script(text)
    assert (got.requirements, got.python, got.fetches) == (requirements, python, None)
    assert replaced(got.script) == lines
    assert len(got.script.split("\n")) == len(text.split("\n"))
    bash_parses(got.script, tmp_path)


def test_an_installer_alone_in_an_if_body_leaves_valid_shell(tmp_path):
    text = sh("""
        #!/bin/bash
        if ! command -v uv >/dev/null 2>&1; then
            curl -LsSf https://astral.sh/uv/install.sh | sh
            source ~/.local/bin/env
        fi
        uvx --with pytest==8.4.1 pytest /tests/test_outputs.py
        """)
    got = read_test_script(text)
    assert replaced(got.script) == [3, 4] and got.requirements == ("pytest==8.4.1",)
    assert got.script.split("\n")[2].startswith("    : # kbench: curl -LsSf")
    bash_parses(got.script, tmp_path)
    done = subprocess.run(["bash", "-c", got.script.replace("uvx", "echo ran uvx")], capture_output=True, text=True)
    assert done.returncode == 0 and "ran uvx" in done.stdout


@pytest.mark.parametrize("text, line", [
    ("apt-get update\napt-get install -y jq\nuvx --with pytest==8.4.1 pytest /tests\n", 2),
    ("#!/bin/bash\n# fetch the fixtures\ngit clone https://github.com/example/data.git /tmp/d\n", 3),
    # one command that installs curl and something else: kept whole, and it fetches
    ("apt-get update && apt-get install -y curl jq\n", 1),
    ("pip install pytest==8.4.1\npip install -r /tests/requirements.txt\n", 2),
    ("uv pip install -e /app\n", 1),
    ("python3 -m pip -q install --no-cache-dir -r /tests/requirements.txt\n", 1),
    ("uvx --with git+https://github.com/example/tool pytest /tests\n", 1),
    ("x=1\ncurl -s https://example.com/data.json -o /tmp/data.json\n", 2),
    ("if true; then\n  wget \\\n    https://example.com/a.tar.gz\nfi\n", 2),
    ("bash <<'EOF'\npip install requests\nEOF\n", 2),
])
def test_what_still_fetches_is_named_with_its_line(text, line):
    got = read_test_script(text)
    assert got.fetches is not None and got.fetches[0] == line, got


@pytest.mark.parametrize("text", [
    "curl -sf http://localhost:8000/health && curl -X POST 127.0.0.1:8000/api -d '{\"a\": 1}'\n",
    "cat > /tmp/notes.txt <<'EOF'\napt-get install -y jq\nEOF\n",
    "# apt-get install -y jq\necho 'git clone https://x' > /tmp/x\n",
    "uv run pytest /tests/test_outputs.py\n",
])
def test_what_does_not_fetch_is_left_alone(text):
    got = read_test_script(text)
    assert got.fetches is None and got.script == text, got


def test_requirements_pip_cannot_take_by_name_are_refused_before_pip():
    for bad in ("--index-url=https://example.com/simple", "git+https://github.com/example/tool", "./pkg"):
        with pytest.raises(VerifierEnvError, match="by name"):
            tools_for([bad])


def test_no_requirements_is_the_default_folder_with_the_uv_shims():
    folder = tools_for([])
    assert folder == commands.tools_folder()
    assert {"pytest", "uvx", "uv", "python"} <= {p.name for p in (folder / "bin").iterdir()}


# --- the pinned folder, built from PyPI -------------------------------------------------------------------------

needs_system_python = pytest.mark.skipif(
    not SYSTEM_PYTHON.exists() or subprocess.run(
        [str(SYSTEM_PYTHON), "-c", f"import sys; sys.exit(sys.version_info[:2] != {tuple(sys.version_info[:2])})"]
    ).returncode != 0, reason="the sandbox's /usr/bin/python3 is missing or of another minor than this interpreter")


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """A cache of its own, so the first tools_for really builds; pip keeps its usual download cache."""
    with pytest.MonkeyPatch.context() as mp:
        pip_cache = os.environ.get("PIP_CACHE_DIR") or \
            Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pip"
        mp.setenv("PIP_CACHE_DIR", str(pip_cache))
        mp.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg")))
        yield


@pytest.fixture(scope="module")
def pinned(cache):
    return tools_for(PINS)


def run(folder: Path, command: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {"HOME": str(cwd), "LANG": "C.UTF-8", **commands.command_env(folder)}
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def summary(path: Path) -> dict:
    return json.loads(path.read_text())["results"]["summary"]


def test_the_pinned_folder_holds_the_pins_and_names_its_plugins(pinned):
    assert pinned.parent == commands._cache_root() and pinned.name.startswith("pinned-")
    assert (pinned / "pytest-8.4.1.dist-info").is_dir() and (pinned / "ctrf").is_dir()
    assert (pinned / "sitecustomize.py").read_bytes() == commands.SITE.read_bytes()
    assert "-p ctrf.main" in (pinned / "bin" / "pytest").read_text()
    assert commands.command_env(pinned)["PYTEST_PLUGINS"] == "ctrf.main"
    assert commands.command_env(pinned)["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] == "1"
    for dirpath, _dirs, files in os.walk(pinned):
        assert os.stat(dirpath).st_mode & 0o777 == 0o755
        for f in files:
            want = 0o755 if Path(dirpath) == pinned / "bin" else 0o644
            assert os.stat(os.path.join(dirpath, f)).st_mode & 0o777 == want, f
    for script in (pinned / "bin").iterdir():  # pip's own scripts run on the sandbox's python3, not this one
        assert sys.executable.encode() not in script.read_bytes(), script


@needs_system_python
@pytest.mark.parametrize("test_body, reward", [("assert 6 * 7 == 42", "1"), ("assert 6 * 7 == 41", "0")])
def test_a_standard_test_sh_runs_on_the_pinned_folder(pinned, tmp_path, test_body, reward):
    logs, tests = tmp_path / "logs", tmp_path / "tests"
    logs.mkdir()
    tests.mkdir()
    (tests / "test_state.py").write_text(f"def test_answer():\n    {test_body}\n")
    got = read_test_script(STANDARD.replace("/logs/verifier/", f"{logs}/").replace("/tests/", f"{tests}/"))
    assert "apt-get update\n" not in got.script and tools_for(got.requirements) == pinned
    (tmp_path / "test.sh").write_text(got.script)
    done = run(pinned, ["bash", str(tmp_path / "test.sh")], tmp_path)
    assert (logs / "reward.txt").read_text().strip() == reward, done.stdout + done.stderr
    assert "platform linux -- Python 3." in done.stdout and "pytest-8.4.1" in done.stdout
    assert summary(logs / "ctrf.json") == {**summary(logs / "ctrf.json"), "tests": 1, "passed": int(reward)}


@needs_system_python
@pytest.mark.parametrize("command", [
    "uvx -p 3.13 -w pytest==8.4.1 --with pytest-json-ctrf==0.3.5 pytest --ctrf out.json {tests}",
    "uv run --with pytest==8.4.1 pytest --ctrf out.json {tests}",
    "uvx pytest@8.4.1 --ctrf out.json {tests}",
    "python3 -m pytest --ctrf out.json {tests}",
    "python -m pytest --ctrf out.json {tests}",
])
def test_a_work_folder_never_stands_in_for_the_tools(pinned, tmp_path, command):
    """The folder the tests run in holds pytest.py, _pytest/, the plugin's ctrf/ and two of pytest's dependencies,
    each ending its process with success when imported. The hidden test puts that folder first on sys.path (to
    import the agent's code) and then imports `packaging`, which pytest itself had not: the installed pins are
    judge tools (verifier_site.py protects every name in the folder), so the failing test still fails, reported by
    the real plugin."""
    work, tests = tmp_path / "work", tmp_path / "tests"
    work.mkdir()
    tests.mkdir()
    for name in ("pytest.py", "iniconfig.py"):
        (work / name).write_text(FORGE)
    for package in ("_pytest", "ctrf", "packaging"):
        (work / package).mkdir()
        (work / package / "__init__.py").write_text(FORGE)
    (tests / "test_fail.py").write_text(sh("""
        import os
        import sys
        sys.path.insert(0, os.getcwd())

        def test_answer():
            from packaging.version import Version
            assert Version("6.7") == Version("4.1")
        """))
    done = run(pinned, ["bash", "-c", command.format(tests=tests / "test_fail.py")], work)
    assert done.returncode == 1, done.stdout + done.stderr
    assert summary(work / "out.json")["failed"] == 1


@needs_system_python
def test_uv_pip_and_uv_venv_have_nothing_left_to_do(pinned, tmp_path):
    done = run(pinned, ["bash", "-c", "uv pip install --system pytest==8.4.1 && uv venv .venv"], tmp_path)
    assert done.returncode == 0 and "already set up" in done.stderr and not (tmp_path / ".venv").exists()


def test_the_same_set_again_is_the_same_folder_without_pip(pinned, monkeypatch):
    made = pinned.stat().st_mtime_ns

    def no_pip(*args, **kwargs):
        raise AssertionError(f"pip ran again: {args}")

    monkeypatch.setattr(verifier_env.subprocess, "run", no_pip)
    assert tools_for(list(reversed(PINS))) == pinned
    assert tools_for(["pytest == 8.4.1", "pytest-json-ctrf==0.3.5", "pytest==8.4.1"]) == pinned
    assert pinned.stat().st_mtime_ns == made


def test_a_version_pypi_lacks_is_said_with_pips_words(cache):
    with pytest.raises(VerifierEnvError, match=r"pip could not install \['pytest==0\.0\.0\.1'\]: (?s:.*)pytest"):
        tools_for(["pytest==0.0.0.1"])
    assert not [p for p in commands._cache_root().iterdir() if p.name.startswith(".tools-")]
