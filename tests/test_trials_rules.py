"""Trial evidence graded under other rules is flagged for regrade: the rules fingerprint covers every file that
decides a verdict, the judge's side included (the shell witness, the bounded parsers, the agent-file reader)."""

from pathlib import Path

from sandbox.agents import textcalls
from sandbox.chatwork import formats, shell_oracle
from sandbox.judge import files, matcher, parse, witness
from task_defs.trials import grading, loader, models


def test_every_file_that_decides_a_verdict_is_in_the_rules_fingerprint():
    ruled = {p.resolve() for p in loader.RULES}
    for module in (grading, models, shell_oracle, witness, parse, files, textcalls, formats, matcher):
        assert Path(module.__file__).resolve() in ruled, module.__name__


def test_a_changed_witness_rule_changes_the_fingerprint(tmp_path, monkeypatch):
    copies = []
    for path in loader.RULES:
        copy = tmp_path / f"{len(copies)}-{path.name}"
        copy.write_bytes(path.read_bytes())
        copies.append(copy)
    monkeypatch.setattr(loader, "RULES", tuple(copies))
    before = loader.rules_fingerprint()
    witness_copy = next(c for c in copies if c.name.endswith("-witness.py"))
    witness_copy.write_text(witness_copy.read_text() + "\n# a changed rule\n")
    assert loader.rules_fingerprint() != before
