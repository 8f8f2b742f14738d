"""The bounded matcher (sandbox/judge/matcher.py) says what `re.search(p, s, re.MULTILINE)` says: on every
stdout_regex of the suite against its trial's reference output and a few hundred strings made from it, and on
random patterns of the subset against random strings (fixed seeds). Pathological patterns stop at STEP_LIMIT, in
counted steps, quickly; anything outside the subset is refused with a message that names it."""

import json
import random
import re
import time
from pathlib import Path

import pytest

from sandbox.chatwork.shell_oracle import SandboxShell
from sandbox.judge.matcher import STEP_LIMIT, StepLimit, Unsupported, compile_regex

SUITE = Path(__file__).resolve().parent.parent / "task_defs" / "suites" / "trials"


def as_re(pattern: str) -> str:
    return pattern.replace(r"\z", r"\Z")  # \z is \Z to the matcher; re before 3.14 knows only \Z


def agree(pattern: str, text: str) -> bool:
    return compile_regex(pattern).search(text) == (re.search(as_re(pattern), text, re.MULTILINE) is not None)


def suite_patterns() -> list[tuple[str, dict]]:
    """(trial id, oracle) of every trial whose oracle has a stdout_regex, read straight from the files."""
    found = []
    for path in sorted(SUITE.glob("*/*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            t = json.loads(line) if line.strip() else {}
            if isinstance(t.get("oracle"), dict) and t["oracle"].get("stdout_regex"):
                found.append((t["id"], t["oracle"]))
    return found


def variants(text: str, pattern: str, rng: random.Random, n: int) -> list[str]:
    """Strings near `text`: lines dropped, doubled, swapped or changed, characters of the pattern and of the
    text put in or taken out, spaces and blank lines around, and strings of the pattern's own words."""
    marks = sorted(set(re.sub(r"\\.", "", pattern)) | set(text) | set(" \n\t0123456789ab"))
    words = re.findall(r"[A-Za-z0-9_./-]+", pattern) or ["x"]
    out = []
    for _ in range(n):
        lines = text.split("\n")
        for _ in range(rng.randint(1, 3)):
            k = rng.randrange(len(lines))
            how = rng.randrange(7)
            if how == 0 and len(lines) > 1:
                del lines[k]
            elif how == 1:
                lines.insert(k, lines[k])
            elif how == 2:
                lines.insert(k, rng.choice(words) + rng.choice(["", " ", "  ", "\t"]) + rng.choice(words))
            elif how == 3 and lines[k]:
                j = rng.randrange(len(lines[k]))
                lines[k] = lines[k][:j] + rng.choice(marks) + lines[k][j + 1:]
            elif how == 4:
                lines[k] = rng.choice(["", " ", "  "]) + lines[k] + rng.choice(["", " ", "\t"])
            elif how == 5:
                rng.shuffle(lines)
            else:
                lines[k] = "".join(rng.choice(marks) for _ in range(rng.randint(0, 8)))
        out.append("\n".join(lines))
    return out


@pytest.fixture(scope="module")
def references(tmp_path_factory) -> list[tuple[str, str, str]]:
    """(trial, pattern, the reference command's real output) of every shell trial with a stdout_regex."""
    shell = SandboxShell(tmp_path_factory.mktemp("refs"))
    return [(tid, o["stdout_regex"], shell(dict(o.get("files") or {}), [o["reference"]], o.get("file_path")).stdout)
            for tid, o in suite_patterns() if o.get("kind") == "shell"]


def test_every_suite_pattern_agrees_with_re_on_its_reference_and_near_it(references):
    assert len(references) >= 30
    rng, checked = random.Random(20240611), 0
    for tid, pattern, out in references:
        assert compile_regex(pattern).search(out), f"{tid}: the reference output does not match"
        assert re.search(as_re(pattern), out, re.MULTILINE), tid
        for s in variants(out, pattern, rng, 300):
            assert agree(pattern, s), (tid, s)
            checked += 1
    assert checked >= 300 * 30


def test_every_machine_pattern_agrees_with_re_on_what_its_reference_printed():
    """A machine trial's stdout_regex is searched in what the mock machine's own programs printed."""
    from task_defs.trials.machine import oracle as machine
    from task_defs.trials.models import Machine

    rng, checked = random.Random(11), 0
    for tid, o in suite_patterns():
        if o.get("kind") != "machine":
            continue
        m = Machine.model_validate(o)
        printed = machine.printed_by_programs(machine.run(m, list(m.reference)))
        assert any(compile_regex(m.stdout_regex).search(t) for t in printed), tid
        for out in printed:
            for s in [out, *variants(out, m.stdout_regex, rng, 300 // len(printed) + 1)]:
                assert agree(m.stdout_regex, s), (tid, s)
                checked += 1
    assert checked >= 300 * sum(o.get("kind") == "machine" for _, o in suite_patterns())


ALPHABET = "ab1 \n_-"
SETS = ["[ab]", "[^a]", "[a-c1]", r"[\d\s]", r"[^\w\n]", "[-a]", "[]a]", r"[\-_]", r"[^\S ]", "[0-9]"]
CLASSES = [r"\s", r"\S", r"\d", r"\D", r"\w", r"\W", "."]
ANCHORS = ["^", "$", r"\A", r"\Z", r"\z", r"\b", r"\B"]


def random_pattern(rng: random.Random, depth: int = 0) -> str:
    """A pattern of the subset: a sequence of atoms, quantified or not, sometimes alternatives."""
    parts = []
    for _ in range(rng.randint(0 if depth else 1, 4)):
        roll = rng.random()
        if roll < 0.3:
            atom = rng.choice("ab1 ") if rng.random() < 0.8 else rng.choice([r"\n", r"\.", r"\-", r"\x61"])
        elif roll < 0.45:
            atom = rng.choice(CLASSES)
        elif roll < 0.55:
            atom = rng.choice(SETS)
        elif roll < 0.65:
            parts.append(rng.choice(ANCHORS))
            continue
        elif roll < 0.75 and depth < 3:
            parts.append(rng.choice(["(?=", "(?!"]) + random_pattern(rng, depth + 1) + ")")
            continue
        elif depth < 3:
            atom = rng.choice(["(", "(?:"]) + random_pattern(rng, depth + 1) + ")"
        else:
            atom = "a"
        if rng.random() < 0.45:
            atom += rng.choice(["*", "+", "?", "{2}", "{1,}", "{0,2}", "{,2}", "{1,3}"]) + \
                rng.choice(["", "", "?"])
        parts.append(atom)
    seq = "".join(parts)
    return seq + "|" + random_pattern(rng, depth + 1) if depth < 3 and rng.random() < 0.2 else seq


def test_random_patterns_of_the_subset_agree_with_re():
    rng = random.Random(7)
    searched = matched = stopped = 0
    for _ in range(3000):
        pattern = random_pattern(rng)
        m = compile_regex(pattern)  # every pattern made is in the subset
        for _ in range(25):
            s = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 10)))
            try:
                found = m.search(s)
            except StepLimit:  # nested repeats of repeats that can match nothing: re takes seconds on some
                stopped += 1
                continue
            assert found == (re.search(as_re(pattern), s, re.MULTILINE) is not None), (pattern, s)
            searched += 1
            matched += found
    assert searched + stopped == 75000 and stopped < 10
    assert 0.2 * searched < matched < 0.8 * searched  # the test asks both ways


def test_the_quirks_of_re_are_kept():
    for pattern, text in [(r"\b", ""), (r"\B", ""), (r"\B", " "), ("^$", ""), ("$", "a\n"), ("^", "a\n"),
                          (r"a\Z", "a\n"), (r"a$", "a\n"), ("(?:)*", ""), ("(a|)*b", "aab"), ("(a*)*b", "aaa"),
                          ("x{,2}y", "xxxy"), (r"[^\n]+$", "\n\n"), ("(?=a)a+?$", "aaa"), ("a{0}b", "b"),
                          (r"(?!a)\w", "ab"), (r"\x41\u00e9", "Aé"), ("[a-]", "-"), (r"\d", "٣"), (r"\w", "é")]:
        assert agree(pattern, text), (pattern, text)


@pytest.mark.parametrize("pattern, text", [("(a+)+$", "a" * 30 + "b"), ("(a|aa)*b", "a" * 40),
                                           ("(x+x+)+y", "x" * 32), (r"^(\s*)*$", " " * 30 + "x"),
                                           ("(?:a*)*(?:a*)*c", "a" * 40)])
def test_pathological_patterns_stop_at_the_step_limit_quickly(pattern, text):
    m = compile_regex(pattern)
    t = time.perf_counter()
    with pytest.raises(StepLimit) as stopped:
        m.search(text)
    assert time.perf_counter() - t < 10  # a bound in steps: under a second here, never minutes
    assert stopped.value.limit == STEP_LIMIT
    small = m.search_steps("a" * 8) if "a" in pattern else m.search_steps("x" * 8)
    assert small == m.search_steps("a" * 8 if "a" in pattern else "x" * 8)  # the same work, step for step


def test_a_lower_limit_stops_sooner_and_the_count_is_exact():
    m = compile_regex(r"^\s*4\s*$")
    found, steps = m.search_steps("\n" * 100)
    assert not found
    assert m.search_steps("\n" * 100, limit=steps) == (False, steps)
    with pytest.raises(StepLimit):
        m.search("\n" * 100, limit=steps - 1)


@pytest.mark.parametrize("pattern, said", [
    (r"(?<=a)b", "lookbehind"), (r"(?<!a)b", "lookbehind"), (r"(a)\1", "backreferences"),
    (r"(?P<x>a)", "named group"), (r"(?i)a", "inline flag"), (r"(?>a)", "atomic"), (r"a*+", "possessive"),
    (r"a{2", "'{'"), (r"{", "nothing to repeat"), (r"a**", "multiple repeat"), (r"^*", "repeated assertion"),
    (r"(?=a)*", "repeated assertion"), (r"\q", r"\q"), (r"[\b]", "backspace"), (r"[z-a]", "bad character range"),
    (r"[\d-z]", "bad character range"), (r"(a", "never closed"), (r"a)", "unbalanced"), (r"[a", "never closed"),
    ("a\\", "backslash"), (r"a{3,2}", "minimum over its maximum"), (r"a{5000}", "count over"),
    (r"\x4", "hex digits"), ("(" * 60 + ")" * 60, "nested"), (r"(?:(?:ab){100}){300}", "instructions")])
def test_what_is_outside_the_subset_is_refused_by_name(pattern, said):
    with pytest.raises(Unsupported) as refused:
        compile_regex(pattern)
    assert said in str(refused.value)
    assert "position" in str(refused.value) or said == "instructions"  # a size belongs to no one place


def test_a_pattern_is_compiled_once():
    assert compile_regex(r"^\s*7\s*$") is compile_regex(r"^\s*7\s*$")
