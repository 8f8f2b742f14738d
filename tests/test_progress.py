"""The progress bar: a log gets one line every ten steps and the last; a terminal always ends on the final count."""

import io

from kbench_dagster.progress import Progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_log_gets_a_line_every_ten_steps_and_one_for_the_last():
    log = io.StringIO()
    bar = Progress(25, "trials", stream=log)
    for i in range(25):
        bar.step(i % 2 == 0)
    lines = log.getvalue().splitlines()
    assert [line.split("] ")[1].split(" ")[0] for line in lines] == ["10/25", "20/25", "25/25"]
    assert lines[-1].endswith("ok 13 eta    0s")


def test_a_terminal_is_redrawn_in_place_and_ends_on_the_final_count_with_a_newline():
    term = Terminal()
    bar = Progress(3000, "trials", stream=term)
    for _ in range(3000):
        bar.step(True)
    out = term.getvalue()
    draws = out.split("\r")[1:]
    assert draws[0].startswith("trials [") and " 1/3000 " in draws[0]  # the first step is shown at once
    assert draws[-1].endswith("3000/3000 ok 3000 eta    0s\n")
    assert out.count("\n") == 1
