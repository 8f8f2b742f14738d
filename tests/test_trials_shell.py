"""The shell oracle runs a trial's commands in the sandbox and asks the trace for a witness: printing the expected
bytes, writing the expected file by hand, or hiding a fake trace line inside the command's own text never passes;
a command that runs past its time is a timeout, never a wrong answer."""

import socket

from sandbox.chatwork.shell_oracle import CachedShell, SandboxShell
from sandbox.engine.reply_cache import ReplyCache
from task_defs.trials.grading import Answer, Call, grade
from task_defs.trials.models import Trial

COUNT = Trial.model_validate({
    "id": "count_lines", "tools": ["run_shell"],
    "tool_specs": {"run_shell": {"description": "Run a bash command.", "parameters": {
        "type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}}},
    "messages": [{"role": "user", "content": "Use wc to count the lines of todo.txt."}],
    "oracle": {"kind": "shell", "files": {"todo.txt": "a\nb\nc\n"}, "stdout_regex": r"^\s*3(\s+todo\.txt)?\s*$",
               "ran": ["wc"], "reference": "wc -l todo.txt"}})
SORTED = COUNT.model_copy(update={"oracle": COUNT.oracle.model_copy(update={
    "stdout_regex": None, "file_path": "sorted.txt", "file_text": "a\nb\nc\n", "ran": ["sort"],
    "files": {"todo.txt": "c\na\nb\n"}, "reference": "sort todo.txt > sorted.txt"})})


def sent(*commands: str) -> Answer:
    return Answer(calls=tuple(Call("run_shell", {"command": c}) for c in commands))


def test_the_work_passes_and_its_products_alone_do_not(tmp_path):
    shell = SandboxShell(tmp_path)
    assert grade(COUNT, sent("wc -l todo.txt"), shell).passed
    assert grade(COUNT, sent("cat todo.txt | wc -l"), shell).passed
    assert grade(COUNT, sent("echo 3"), shell).cause == "no_witness"
    assert grade(COUNT, sent("true"), shell).cause == "wrong_output"
    assert grade(SORTED, sent("sort todo.txt > sorted.txt"), shell).passed
    assert grade(SORTED, sent("printf 'a\\nb\\nc\\n' > sorted.txt"), shell).cause == "no_witness"


def test_a_trace_line_written_into_the_command_is_no_witness(tmp_path):
    shell = SandboxShell(tmp_path)
    assert grade(COUNT, sent("echo 3; : '\n+ wc\n'"), shell).cause == "no_witness"
    assert grade(SORTED, sent("printf 'a\\nb\\nc\\n' > sorted.txt # '\n+ sort\n'"), shell).cause == "no_witness"


def test_commands_cannot_upset_the_driver_and_see_no_network(tmp_path):
    shell = SandboxShell(tmp_path)
    # a loop variable of the model's own must not touch the driver (once, it looped the driver forever)
    assert grade(COUNT, sent("for i in 1; do wc -l todo.txt; done"), shell).passed
    assert grade(COUNT, sent("i=0", "wc -l todo.txt"), shell).passed
    with socket.socket() as listener:  # a host service on loopback: the commands' own network cannot reach it
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        run = shell({}, [f"(exec 3<>/dev/tcp/127.0.0.1/{port}) 2>/dev/null && echo reached || echo refused"], None)
    assert run.stdout.strip() == "refused"


def test_a_command_past_its_time_is_a_timeout(tmp_path):
    v = grade(COUNT, sent("sleep 60; wc -l todo.txt"), SandboxShell(tmp_path, timeout_s=1.0))
    assert (v.passed, v.cause) == (False, "timeout")


class CountedShell(SandboxShell):
    """The real sandbox shell, counting the runs it makes."""

    runs = 0

    def __call__(self, files, commands, read=None):
        self.runs += 1
        return super().__call__(files, commands, read)


def test_a_finished_shell_run_is_kept_and_a_cut_off_one_never(tmp_path):
    """Over cached replies a re-run grades the same commands again from what they left (the verdict the same); a
    run cut off by its time is a safety stop and runs again next time."""
    cache = ReplyCache(tmp_path / "cache")
    shell = CountedShell(tmp_path / "w")
    kept = CachedShell(shell, cache)
    first, again = (grade(SORTED, sent("sort todo.txt > sorted.txt"), kept) for _ in range(2))
    assert first.passed and again.passed and shell.runs == 1
    assert grade(SORTED, sent("sort -r todo.txt > sorted.txt"), kept).cause == "wrong_output" and shell.runs == 2
    slow = CountedShell(tmp_path / "s", timeout_s=0.5)
    cut = CachedShell(slow, cache)
    for _ in range(2):
        assert grade(COUNT, sent("wc -l todo.txt; sleep 30"), cut).cause == "timeout"
    assert slow.runs == 2
