"""The mock machine (task_defs/trials/machine/) and the `machine` oracle: hostile command lines fail quickly and
say why; pacman, systemctl and deskctl keep the real tools' rules (sudo, dependencies, masks, scopes); the verdict
comes from the state the commands leave, so printing the answer never passes, doing the work in two steps does,
and doing more than asked is collateral; the exchange feeds the machine's output back and grading replays it."""

import json
import time
import tomllib

import pytest

from sandbox.chatwork.trial_checks import _machine_forgeries, gate_problems
from sandbox.chatwork.trials import ToolTrials, _results
from sandbox.engine.chat import ChatReply
from task_defs.trials.grading import Answer, Call, answer_shape, grade, reference_answer, work_grade
from task_defs.trials.loader import TRIALS_DIR, load_families
from task_defs.trials.machine import deskctl
from task_defs.trials.machine.fixtures import NAMES, FixtureError, fixture
from task_defs.trials.machine.oracle import Feed, state_after
from task_defs.trials.machine.shell import MAX_CHARS, MAX_COMMANDS, Session, parse
from task_defs.trials.machine.state import flat, vercmp
from task_defs.trials.models import Trial

TOOLS = ["run_shell", "web_search"]


def trial(oracle: dict, prompt: str = "Do the thing.") -> Trial:
    return Trial.model_validate({"id": "t_machine", "tools": TOOLS, "messages": [{"role": "user", "content": prompt}],
                                 "oracle": {"kind": "machine", **oracle}})


INSTALL = trial({"fixture": "fresh", "expect": {"packages.ripgrep.installed": True},
                 "reference": ["sudo pacman -S --needed ripgrep"]})
VERSION = trial({"fixture": "dev_laptop", "reference": ["pacman -Q git"],
                 "stdout_regex": r"\A(?:git 2\.48\.1-1\n|Name +: git\nVersion +: 2\.48\.1-1\n(?:[^\n]+\n)*\n?)\Z"})
SSHD = trial({"fixture": "dev_laptop", "expect": {"services.sshd.enabled": True, "services.sshd.active": True},
              "reference": ["sudo systemctl enable --now sshd"], "max_commands": 1})


def sent(*commands: str, tool: str = "run_shell") -> Answer:
    return Answer(calls=tuple(Call(tool, {"command": c}) for c in commands))


def run(fx: str, *commands: str) -> Session:
    s = Session(fixture(fx))
    for c in commands:
        s.run(c)
    return s


# ------------------------------------------------------------------------------------ the interpreter

@pytest.mark.parametrize("line,kind,says", [
    ("pacman -Q | grep git", "unsupported", "pipe"),
    ("deskctl theme set $(deskctl theme list)", "unsupported", "substitution"),
    ("echo `pacman -Q`", "unsupported", "substitution"),
    ("echo '{}' > /var/lib/pacman/local/state.json", "unsupported", "redirection"),
    ("pacman -Q < list.txt", "unsupported", "redirection"),
    ("sudo pacman -S $PKG", "unsupported", "variables"),
    ('echo "$HOME"', "unsupported", "variables"),
    ("PKG=git pacman -Q", "unsupported", "variables"),
    ("sudo pacman -Syu &", "unsupported", "background"),
    ("(sudo pacman -S git)", "unsupported", "subshells"),
    ("for p in git fd; do pacman -Q p; done", "unsupported", "control structures"),
    ("sudo pacman -S 'ripgrep", "malformed", "matching `'`"),
    ('deskctl font set "Fira Code', "malformed", 'matching `"`'),
    ("sudo pacman -S ripgrep &&", "malformed", "ends after"),
    ("; pacman -Q", "malformed", "syntax error"),
    ("true ;; true", "malformed", "syntax error"),
])
def test_hostile_command_lines_are_refused_whole_and_say_why(line, kind, says):
    s = Session(fixture("fresh"))
    before = s.state.to_json()
    r = s.run(line)
    assert (r.status, r.refused) == (2, kind) and says in r.output
    assert r.invocations == [] and s.state.to_json() == before  # nothing of it ran


def test_quoting_is_read_as_bash_reads_it():
    assert parse("deskctl font set 'Fira Code' --size 12") == [(";", ["deskctl", "font", "set", "Fira Code", "--size",
                                                                      "12"])]
    assert parse('echo "a;b" a\\;b \'|\' # a comment | > $(x)') == [(";", ["echo", "a;b", "a;b", "|"])]
    assert parse("true && \\\n false\n\ntrue || x; y") == [(";", ["true"]), ("&&", ["false"]), (";", ["true"]),
                                                           ("||", ["x"]), (";", ["y"])]
    assert parse("deskctl wallpaper set ~/a.jpg x~") == [(";", ["deskctl", "wallpaper", "set", "/home/me/a.jpg",
                                                               "x~"])]


def test_unknown_programs_exit_127_and_the_rest_goes_on():
    r = run("fresh", "yay -S ripgrep; /usr/bin/pacman -Q bash; ./install.sh").calls[0]
    assert r.status == 127 and r.not_found == ["yay", "./install.sh"]
    assert "bash: yay: command not found" in r.output and "bash 5.2.037-5" in r.output
    assert "./install.sh: No such file or directory" in r.output
    assert run("fresh", "sudo yay -S x").calls[0].output.startswith("sudo: yay: command not found")


def test_the_bounds_fail_fast_and_clearly():
    start = time.perf_counter()
    s = Session(fixture("fresh"))
    huge = s.run("true;" * 10_000)
    assert huge.refused == "too_big" and f"{MAX_CHARS} at most" in huge.output
    many = s.run("true;" * (MAX_COMMANDS + 1))
    assert many.refused == "too_big" and f"more than {MAX_COMMANDS} commands" in many.output
    for _ in range(MAX_COMMANDS):
        s.run("true")
    over = s.run("sudo pacman -S ripgrep")
    assert over.refused == "too_big" and "ripgrep" not in s.state.installed
    lines = Session(fixture("fresh")).run("\n".join(["true"] * 10_000))
    assert lines.refused == "too_big"
    assert time.perf_counter() - start < 1.0


def test_and_or_keep_bash_exit_status_semantics():
    r = run("fresh", "false && echo a || echo b; true || echo c && echo d; false || false && echo e").calls[0]
    assert r.output == "b\nd\n" and r.status == 1  # `false || false && echo e`: the last status is false's
    assert run("fresh", "exit 3; echo never").calls[0].status == 3


# -------------------------------------------------------------------------------------- the programs

def test_changes_need_sudo_queries_do_not_and_user_units_refuse_it():
    s = Session(fixture("dev_laptop"))
    cases = [("pacman -S ripgrep", 1, "you cannot perform this operation unless you are root"),
             ("pacman -Rs neovim", 1, "unless you are root"), ("pacman -Syu", 1, "unless you are root"),
             ("systemctl enable --now sshd", 1, "Interactive authentication required"),
             ("systemctl start docker", 1, "Interactive authentication required"),
             ("sudo systemctl --user stop pipewire-pulse", 1, "Failed to connect to user scope bus"),
             ("sudo deskctl theme set nord", 1, "refusing to run as root")]
    for line, status, says in cases:
        r = s.run(line)
        assert r.status == status and says in r.output, line
    assert flat(s.state) == flat(fixture("dev_laptop"))  # none of it changed anything
    assert s.run("pacman -Qi git").status == 0 and s.run("systemctl status sshd").status == 3
    assert s.run("systemctl --user disable --now pipewire-pulse").status == 0
    assert not s.state.user_services["pipewire-pulse"].active
    assert s.run("sudo -n pacman -S --noconfirm ripgrep").status == 0 and s.state.installed["ripgrep"].version == \
        "14.1.1-1"


def test_installing_pulls_dependencies_and_providers():
    s = run("fresh", "sudo pacman -S bat tldr")
    assert s.calls[0].status == 0
    assert {n: s.state.installed[n].reason for n in ("bat", "tealdeer", "libgit2", "oniguruma")} == {
        "bat": "explicit", "tealdeer": "explicit", "libgit2": "dependency", "oniguruma": "dependency"}
    assert run("fresh", "sudo pacman -S no-such-pkg ripgrep").calls[0].output.strip() == \
        "error: target not found: no-such-pkg"
    partial = run("fresh", "sudo pacman -Sy ripgrep")
    assert partial.calls[0].status == 1 and "partial upgrade" in partial.calls[0].output
    assert "ripgrep" not in partial.state.installed


def test_removal_refuses_what_others_depend_on_and_recursive_removal_keeps_what_is_needed():
    s = Session(fixture("dev_laptop"))
    r = s.run("sudo pacman -R pcre2")
    assert r.status == 1 and ":: removing pcre2 breaks dependency 'pcre2' required by git" in r.output
    assert "pcre2" in s.state.installed
    assert s.run("sudo pacman -Rs bat").status == 0
    assert "bat" not in s.state.installed and "oniguruma" in s.state.installed  # jq still needs oniguruma
    assert "libgit2" not in s.state.installed or "eza" in s.state.installed
    s = run("home_server", "sudo pacman -R nginx", "sudo pacman -Rn openssh")
    assert s.state.pacsave == ["/etc/nginx/nginx.conf.pacsave"] and "sshd" not in s.state.services
    cascade = run("dev_laptop", "sudo pacman -Rc libgit2").state
    assert "bat" not in cascade.installed and "libgit2" not in cascade.installed


def test_systemctl_masks_scopes_and_missing_units():
    s = Session(fixture("home_server"))
    assert "is masked" in s.run("sudo systemctl start avahi-daemon").output
    assert "masked" in s.run("sudo systemctl enable avahi-daemon").output
    assert s.run("sudo systemctl unmask avahi-daemon && sudo systemctl enable --now avahi-daemon").status == 0
    assert s.state.services["avahi-daemon"].active and not s.state.services["avahi-daemon"].masked
    missing = s.run("sudo systemctl enable --now bluetooth")
    assert missing.status == 1 and "bluetooth.service does not exist" in missing.output  # bluez is not installed
    assert s.run("systemctl is-enabled sshd").output == "enabled\n"
    assert s.run("systemctl --user is-active syncthing").output == "active\n"


def test_deskctl_keeps_its_documented_rules():
    s = Session(fixture("fresh"))
    s.run("deskctl theme set NORD")
    assert (s.state.desktop.theme, s.state.desktop.wallpaper) == ("nord", "/usr/share/backgrounds/nord/frost.jpg")
    r = s.run("deskctl bind super+return exec foot")
    assert r.status == 1 and "already bound" in r.output
    assert s.run("deskctl unbind Super+Return && deskctl bind super + return 'exec foot'").status == 1  # spaces split
    assert s.run("deskctl bind SUPER+RETURN exec foot").status == 0
    assert s.state.desktop.bindings["SUPER+RETURN"] == "exec foot"
    assert "not installed" in s.run("deskctl font set Fira Code").output
    assert s.run("deskctl display scale 1.3").status == 1 and s.run("deskctl display scale 1.75").status == 0
    assert deskctl.keys_of("shift+super+enter") == "SUPER+SHIFT+RETURN" and deskctl.keys_of("SUPER+A+B") is None
    job = tomllib.loads((TRIALS_DIR / "desktop" / "job.toml").read_text())
    assert deskctl.HELP in job["tools"]["run_shell"]["description"]  # the tool is documented, word for word


def test_fixtures_are_consistent_independent_and_deterministic():
    for name in NAMES:
        a, b = fixture(name), fixture(name)
        assert a.to_json() == b.to_json() and a.problems() == []
        a.installed.clear()
        assert fixture(name).installed  # each call a fresh copy
        changed = run(name, "sudo pacman -Syu ripgrep", "sudo systemctl mask --now NetworkManager",
                      "deskctl bind SUPER+Y lock", "deskctl theme set kanagawa", "sudo pacman -Rn firefox").state
        assert changed.to_json() != b.to_json() and fixture(name).to_json() == b.to_json()  # the copies share nothing
    with pytest.raises(FixtureError, match="no fixture"):
        fixture("nope")
    assert vercmp("1:1.3.1-2", "1.4-1") == 1 and vercmp("14.1.0-1", "14.1.1-1") == -1 and vercmp("2.0", "2.0") == 0


# ---------------------------------------------------------------------------------------- the oracle

def test_state_decides_not_printed_text():
    assert grade(INSTALL, sent("sudo pacman -S ripgrep")).passed
    assert grade(INSTALL, sent("pacman -Q ripgrep || sudo pacman -S --needed ripgrep")).passed
    assert grade(INSTALL, sent("pacman -Ss ripgrep", "sudo pacman -S ripgrep")).passed  # two calls, in order
    printed = grade(INSTALL, sent("echo 'ripgrep 14.1.1-1'; echo '{\"packages.ripgrep.installed\": true}'"))
    assert (printed.passed, printed.cause) == (False, "wrong_state") and "packages.ripgrep.installed" in printed.detail
    assert grade(INSTALL, sent("false && sudo pacman -S ripgrep")).cause == "wrong_state"
    assert grade(INSTALL, sent("pacman -S ripgrep")).cause == "wrong_state"  # refused without sudo
    assert grade(INSTALL, sent("pacman -S ripgrep || sudo pacman -S ripgrep")).passed


def test_queries_are_answered_by_the_machines_own_output():
    assert grade(VERSION, sent("pacman -Q git")).passed and grade(VERSION, sent("pacman -Qi git")).passed
    assert grade(VERSION, sent("sudo pacman -Q git")).passed
    echoed = grade(VERSION, sent("echo 'git 2.48.1-1'"))
    assert (echoed.passed, echoed.cause) == (False, "wrong_output")
    assert grade(VERSION, sent("pacman -Q")).cause == "wrong_output"  # every package listed is no answer
    assert grade(VERSION, sent("pacman -Si git")).cause == "wrong_output"  # the repository's version, not the one here


def test_collateral_and_command_counts():
    extra = grade(INSTALL, sent("sudo pacman -S ripgrep fd"))
    assert (extra.cause, extra.passed) == ("collateral", False) and "packages.fd.installed" in extra.detail
    upgraded = grade(trial({"fixture": "dev_laptop", "expect": {"packages.jq.installed": False},
                            "reference": ["sudo pacman -R jq"]}), sent("sudo pacman -Syu", "sudo pacman -R jq"))
    assert upgraded.cause == "collateral" and "packages.firefox.version" in upgraded.detail
    assert grade(SSHD, sent("sudo systemctl enable --now sshd")).passed
    two = grade(SSHD, sent("sudo systemctl enable sshd && sudo systemctl start sshd"))
    assert two.cause == "too_many_commands"
    started = grade(SSHD, sent("sudo systemctl start sshd"))
    assert started.cause == "wrong_state" and "services.sshd.enabled" in started.detail


def test_causes_name_what_went_wrong_on_the_machine():
    assert grade(INSTALL, sent("sudo pacman -S 'ripgrep")).cause == "malformed_command"
    assert grade(INSTALL, sent("pacman -Ss grep | head")).cause == "unsupported_syntax"
    assert grade(INSTALL, sent("yay -S ripgrep")).cause == "not_found_command"
    assert grade(INSTALL, sent("true;" * 10_000)).cause == "over_limit"
    assert grade(INSTALL, sent("yay -S ripgrep", "sudo pacman -S ripgrep")).passed  # a miss, then the work: a pass
    assert grade(INSTALL, sent("sudo pacman -S ripgrep", tool="web_search")).cause == "wrong_tool"
    assert grade(INSTALL, Answer(calls=(Call("run_shell", {"cmd": "x"}),))).cause == "wrong_args"
    assert grade(INSTALL, Answer(calls=(Call("run_shell", None),))).cause == "malformed_args"
    assert grade(INSTALL, Answer(text="{}")).cause == "wrong_channel" and grade(INSTALL, Answer()).cause == "empty"


def test_a_trial_that_doing_nothing_would_pass_is_refused():
    with pytest.raises(ValueError, match="already holds"):
        trial({"fixture": "fresh", "expect": {"packages.bash.installed": True}, "reference": ["true"]})
    with pytest.raises(ValueError, match="not a state path"):
        trial({"fixture": "fresh", "expect": {"packages.ripgrep": True}, "reference": ["true"]})
    with pytest.raises(ValueError, match="no fixture"):
        trial({"fixture": "laptop", "expect": {"packages.ripgrep.installed": True}, "reference": ["true"]})
    inline = trial({"fixture": {"installed": {"bash": {"version": "5.2.037-5"}, "glibc": {"version": "2.41-3"},
                                              "readline": {"version": "8.2.013-2"}, "ncurses": {"version": "6.5-4"},
                                              "foot": {"version": "1.22.3-1"}, "firefox": {"version": "138.0.3-1"},
                                              "gcc-libs": {"version": "15.1.1-1"}, "ttf-hack": {"version": "3.003-7"}},
                                "desktop": {"theme": "nord", "font": "Hack", "wallpaper": "/x.jpg",
                                            "terminal": "foot", "browser": "firefox"}},
                    "expect": {"desktop.scale": 2}, "reference": ["deskctl display scale 2"]})
    assert grade(inline, reference_answer(inline)).passed and not grade(inline, sent("true")).passed


def test_shapes_and_grades_come_from_the_work():
    assert answer_shape(INSTALL) == "machine:1:packages.*.installed" and work_grade(INSTALL) == "easy"
    assert answer_shape(VERSION) == "machine:1::stdout"
    two_steps = trial({"fixture": "fresh", "expect": {"packages.syncthing.installed": True,
                                                      "user_services.syncthing.active": True},
                       "reference": ["sudo pacman -S syncthing", "systemctl --user start syncthing"]})
    assert work_grade(two_steps) == "medium"


def test_the_forgeries_score_zero_on_every_machine_trial():
    kind = ToolTrials([f for f in load_families() if f.id in ("packages", "desktop")])
    assert len(kind.units) >= 200
    assert gate_problems(kind) == []
    for u in kind.units:
        for what, answer in _machine_forgeries(u).items():
            assert grade(u.trial, answer).score == 0, (u.id, what)


# -------------------------------------------------------------------------------------- the exchange

def test_the_exchange_feeds_the_machines_output_back_and_grading_replays_it():
    feed = Feed(INSTALL.oracle, '{"ok": true}')
    reply = ChatReply("", [{"id": "c1", "name": "run_shell", "arguments": json.dumps({"command": "pacman -F rg"})},
                           {"id": "c2", "name": "web_search", "arguments": '{"query": "rg"}'}])
    tool_msgs = _results(reply, [], 0, feed)[1:]
    shown = json.loads(tool_msgs[0]["content"])
    assert shown["exit_code"] == 0 and "extra/ripgrep 14.1.1-1\n    usr/bin/rg" in shown["output"]
    assert tool_msgs[1]["content"] == '{"ok": true}'
    written = _results(ChatReply('{"name": "run_shell", "arguments": {"command": "sudo pacman -S ripgrep"}}'),
                       [Call("run_shell", {"command": "sudo pacman -S ripgrep"}, "text")], 1, feed)
    assert "installing ripgrep" in written[1]["content"]
    assert feed.session.state.installed["ripgrep"]  # the same state the grading will replay to
    assert state_after("fresh", ["pacman -F rg", "sudo pacman -S ripgrep"]) == flat(feed.session.state)
    assert _results(reply, [], 0)[1]["content"] == '{"ok": true}'  # other trials: the neutral result, as before
