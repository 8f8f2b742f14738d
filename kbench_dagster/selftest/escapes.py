"""Family 7, terminal escapes: the model's final message and a file it leaves carry ESC sequences (clear the
screen, set the window title, an OSC 8 hyperlink) and a C1 control. Contained: what `kbench triage` prints, for the
run and for the task, holds none of them raw, though the records hold them."""

from __future__ import annotations

import re

from kbench_dagster.selftest.family import Context, Family, RunView, Verdict, bash, say, scored

TASK = "clamp"
CLEAR, TITLE = "\x1b[2J\x1b[H", "\x1b]0;selftest owns this terminal\x07"
LINK = "\x1b]8;;https://attacker.invalid/\x1b\\harmless text\x1b]8;;\x1b\\"
CSI_C1 = "\x9b7m"
# the same made by printf inside the sandbox, as a file name (no slash in its link; \302\233 is U+009B in UTF-8)
NAME = (r"notes\033[2J\033]0;title from a file name\007\033]8;;mailto:x@attacker.invalid\033\\link\033]8;;\033\\"
        r"\302\2337m.txt")
ESC = "\x1b"
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]")  # any C0 control but tab and newline, DEL, any C1


def attacks(ctx: Context) -> dict:
    return {TASK: [
        bash(f"printf 'left by the selftest ({ctx.marker})\\n' > \"$(printf '{NAME}')\" && ls"),
        say(f"All done. {CLEAR}{TITLE}{LINK}{CSI_C1} It works."),
    ]}


def check(view: RunView, ctx: Context) -> Verdict:
    r = view.result(TASK)
    names = [p.name for p in (view.record(TASK) / "workdir").iterdir()] if (view.record(TASK) / "workdir").is_dir() \
        else []
    escaped_names = sum(ESC in n for n in names)
    carried = ESC in (r.get("final_message") or "") and escaped_names > 0
    shown = {"triage": view.cli("triage", view.run_id),
             "triage --task": view.cli("triage", view.run_id, "--task", TASK)}
    raw = {what: len(RAW.findall(text)) for what, text in shown.items()}
    visible = "\\x1b]0;" in shown["triage --task"]
    ok = scored(r) and carried and visible and not any(raw.values())
    return Verdict(ok, f"the final message and {escaped_names} file name carry ESC: "
                       f"{'yes' if carried else 'NO'}; raw control bytes printed by kbench triage: {raw['triage']}, "
                       f"by triage --task: {raw['triage --task']} (shown as \\x1b: {'yes' if visible else 'NO'})")


FAMILY = Family("terminal-escapes", attacks, check)
