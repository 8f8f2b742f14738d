"""A shell trial's witness is what the kernel executed, resolved to the system's program: a function, `hash -p`, a
link to another program under the program's name, a look-alike script earlier on PATH or `exec -a` never counts,
whatever they print. And what the oracle reads back is read without following links: a folder link the commands
made to a host file the sandbox cannot read gives the trial's missing file, and none of its text in the verdict."""

import os

import pytest

from sandbox.chatwork.shell_oracle import SandboxShell
from sandbox.chatwork.trial_checks import probe
from sandbox.chatwork.trials import ToolTrials
from sandbox.judge import witness
from task_defs.trials.grading import Answer, Call, grade
from task_defs.trials.loader import Family, load_families
from task_defs.trials.models import Trial

COUNT = Trial.model_validate({
    "id": "count_lines", "tools": ["run_shell"],
    "tool_specs": {"run_shell": {"description": "Run a bash command.", "parameters": {
        "type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}}},
    "messages": [{"role": "user", "content": "Use wc to count the lines of todo.txt."}],
    "oracle": {"kind": "shell", "files": {"todo.txt": "a\nb\nc\n"}, "stdout_regex": r"^\s*3(\s+todo\.txt)?\s*$",
               "ran": ["wc"], "reference": "wc -l todo.txt"}})
FILED = COUNT.model_copy(update={"oracle": COUNT.oracle.model_copy(update={
    "stdout_regex": None, "file_path": "reports/sorted.txt", "file_text": "a\nb\nc\n", "ran": ["sort"],
    "files": {"todo.txt": "c\na\nb\n"}, "reference": "mkdir reports && sort todo.txt > reports/sorted.txt"})})


def sent(*commands: str) -> Answer:
    return Answer(calls=tuple(Call("run_shell", {"command": c}) for c in commands))


FORGERIES = {
    "a function": "wc() { echo 3; }; wc",
    "hash -p": "hash -p /bin/echo wc; wc 3",
    "a link to echo earlier on PATH": "mkdir bin && ln -s /bin/echo bin/wc && PATH=$PWD/bin:$PATH && wc 3",
    "a look-alike script earlier on PATH": "mkdir bin && printf '#!/bin/sh\\necho 3\\n' > bin/wc && chmod +x bin/wc "
                                           "&& PATH=$PWD/bin:$PATH && wc",
    "an alias": "shopt -s expand_aliases; alias wc='echo 3'\nwc",
    "exec -a": "(exec -a wc /bin/echo 3)",
    "a copy in the work folder": "cp /bin/echo ./wc && ./wc 3",
}


@pytest.mark.parametrize("how", sorted(FORGERIES))
def test_a_forged_witness_is_no_witness(tmp_path, how):
    v = grade(COUNT, sent(FORGERIES[how]), SandboxShell(tmp_path))
    assert (v.passed, v.cause) == (False, "no_witness"), v


def test_the_real_program_is_a_witness_however_it_is_named(tmp_path):
    shell = SandboxShell(tmp_path)
    for command in ("wc -l todo.txt", "/usr/bin/wc -l todo.txt", "cat todo.txt | /bin/wc -l",
                    "wc() { command wc \"$@\"; }; wc -l todo.txt", "env wc -l < todo.txt"):
        assert grade(COUNT, sent(command), shell).passed, command
    # awk is the system's alternative (/etc/alternatives/awk): the program it leads to is awk's
    assert "awk" in shell({"f": "x\n"}, ["awk 'END { print NR }' f"], None).programs


def test_a_link_named_like_the_program_to_another_is_not_it(tmp_path, monkeypatch):
    """Even in a system folder: a link `rg` to echo is echo; a link through the alternatives keeps its name."""
    system = tmp_path / "usr" / "bin"
    system.mkdir(parents=True)
    (system / "echo").write_text("#!/bin/sh\n")
    (system / "echo").chmod(0o755)
    (system / "rg").symlink_to("echo")
    (system / "echo2").symlink_to(system / "echo")
    monkeypatch.setattr(witness, "SYSTEM_DIRS", frozenset({str(system)}))
    monkeypatch.setattr(witness, "SYSTEM_ROOTS", (str(tmp_path / "usr") + "/",))
    assert witness.program_of(str(system / "echo")) == "echo"
    assert witness.program_of(str(system / "rg")) is None
    assert witness.program_of(str(system / "echo2")) is None
    assert witness.program_of(str(system / ".." / "bin" / "echo")) is None  # not written as a plain path
    assert witness.program_of("bin/echo") is None


def test_a_debian_rename_is_its_program_only_through_its_own_link(tmp_path, monkeypatch):
    """fdfind is Debian's link to fd's binary outside the system folder: that link is fdfind; another link named
    fdfind (to echo) or one to fd's binary under another name is not."""
    system, cargo = tmp_path / "usr" / "bin", tmp_path / "usr" / "lib" / "cargo" / "bin"
    for d in (system, cargo):
        d.mkdir(parents=True)
    for f in (cargo / "fd", system / "echo"):
        f.write_text("#!/bin/sh\n")
        f.chmod(0o755)
    (system / "fdfind").symlink_to(cargo / "fd")
    (system / "fdx").symlink_to(cargo / "fd")
    monkeypatch.setattr(witness, "SYSTEM_DIRS", frozenset({str(system)}))
    monkeypatch.setattr(witness, "SYSTEM_ROOTS", (str(tmp_path / "usr") + "/",))
    monkeypatch.setattr(witness, "RENAMED", {"fdfind": str(cargo / "fd")})
    assert witness.program_of(str(system / "fdfind")) == "fdfind"
    assert witness.program_of(str(system / "fdx")) is None
    (system / "fdfind").unlink()
    (system / "fdfind").symlink_to("echo")
    assert witness.program_of(str(system / "fdfind")) is None


def test_the_trace_is_read_by_the_kernels_lines_only():
    mark = "kbench-shell-0123456789abcdef"
    trace = "\n".join([
        '1 execve("/bin/sh", ["/bin/sh", "-c", "x", "kbench-ipc", "bash", "-c", "y", "' + mark + '"], 0x1) = 0',
        '1 execve("/usr/bin/bash", ["bash", "-c", "exec 1>"..., "' + mark + '"], 0x1 /* 2 vars */) = 0',
        '2 execve("/usr/bin/echo", ["echo", "\\n3 execve(\\"/usr/bin/wc\\", [\\"wc\\"], 0x1) = 0"], 0x1) = 0',
        '3 execve("/usr/local/bin/sort", ["sort"], 0x1 /* 4 vars */) = -1 ENOENT (No such file or directory)',
        '4 execve("/usr/bin/sort", ["sort"], 0x1 /* 4 vars */ <unfinished ...>',
        '5 execve("/usr/bin/tr", ["tr", ") = 0"], 0x1 /* 4 vars */) = -1 EACCES (Permission denied)',
        '4 <... execve resumed>) = 0',
    ])
    assert witness.executed(trace, mark) == ["/usr/bin/echo", "/usr/bin/sort"]
    with pytest.raises(witness.NoWitness):
        witness.executed(trace, "kbench-shell-another")


@pytest.mark.skipif(os.geteuid() != 0, reason="the judge reads as root only where it runs as root")
def test_a_folder_link_to_a_root_only_file_is_a_missing_file_and_leaks_nothing(tmp_path):
    secret = "kbench-test-secret-" + os.urandom(6).hex()
    hidden = tmp_path / "root-only"
    hidden.mkdir(mode=0o700)
    (hidden / "sorted.txt").write_text(f"{secret}\nthe host's own file\n")
    (hidden / "sorted.txt").chmod(0o600)
    shell = SandboxShell(tmp_path / "w")
    run = shell(dict(FILED.oracle.files), [f"ln -s {hidden} reports; sort todo.txt"], "reports/sorted.txt")
    assert run.file_text is None
    v = grade(FILED, sent(f"ln -s {hidden} reports && sort todo.txt"), shell)
    assert (v.passed, v.cause) == (False, "wrong_output") and secret not in v.detail, v
    # a link to the host file itself, at the place of the oracle's own output, is refused the same way
    out_link = f"rm -f \"$KB_OUT/stdout\"; ln -s {hidden}/sorted.txt \"$KB_OUT/stdout\""
    assert secret not in shell({}, [out_link], None).stdout
    assert grade(FILED, sent(FILED.oracle.reference), shell).passed


def test_the_probe_scores_every_witness_forgery_zero():
    """`kbench trials probe` forges the witness four ways over each shell trial, with the product right: 0."""
    picked = ("shell_wc_todo_items", "shell_sort_guest_names", "shell_awk_sum_expenses", "shell_grep_cut_port")
    shell = next(f for f in load_families() if f.id == "shell")
    found = probe(ToolTrials([Family(shell.id, shell.folder, shell.spec,
                                     tuple(t for t in shell.trials if t.id in picked))]))
    forged = {name: v for name, v in found.items() if name.startswith("forged witness")}
    assert len(forged) == 4 and all(v["trials"] == len(picked) for v in forged.values())
    assert all(v["score"] == 0 for v in found.values() if v["kind"] == "structural"), found


def test_a_missing_trace_is_the_harness_failure_never_the_models(tmp_path, monkeypatch):
    """No strace, or a tracer that records nothing: grading raises (the attempt is infra), it scores nothing."""
    shell = SandboxShell(tmp_path)
    monkeypatch.setattr(witness, "SYSTEM_PATH", str(tmp_path))  # a system without strace
    with pytest.raises(witness.NoWitness, match="apt-get install strace"):
        grade(COUNT, sent("wc -l todo.txt"), shell)
    monkeypatch.setattr(witness, "tracer", lambda trace_file: ["/usr/bin/env", "--"])
    with pytest.raises(witness.NoWitness, match="cannot be read"):
        grade(COUNT, sent("wc -l todo.txt"), shell)
