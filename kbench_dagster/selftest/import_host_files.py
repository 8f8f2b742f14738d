"""Judge family: a results file that would make the board publish host files (issue 33, finding 8).

A file from "another machine" names, in an attempts row, a record_path to a folder outside the runs root: a
record-shaped folder whose tests.txt, result.json and final file hold a secret, and whose workdir/ links to a secret
file beside it. A second file carries a time of 1e308 (a DECIMAL overflow in every board build once stored) and an
unknown field; a third is clean. All three go through the real `kbench import` in one call, then the real
`kbench board` builds from the store with its own runs root. Contained: both hostile files are refused by name, the
clean one lands, the board builds, and no file of the board holds the secret.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

from kbench_dagster.selftest.family import JudgeContext, JudgeFamily, Verdict


def _row(run_id: str, marker: str, **extra) -> dict:
    return {"run_id": run_id, "model": f"selftest-{marker}", "agent": "api", "condition": "base", "task": "fizz",
            "seed": 1, "outcome": "pass", "duration_s": 1.5, "turns": 1, "input_tokens": 10, "output_tokens": 5,
            **extra}


def _results(run_id: str, marker: str, **extra) -> dict:
    """A results document as `kbench collect` writes one, with one attempt."""
    return {"schema": "kbench-results/1", "runs": [{
        "run_id": run_id, "model": f"selftest-{marker}", "agent": "api", "suite_fingerprint": marker,
        "versions": {}, "results": 1, "conditions": [], "false_claims": 0, "warnings": [],
        "rows": {"attempts": [_row(run_id, marker, **extra)], "gradings": [], "requests": []}}]}


def _plant(folder: Path, secret_text: str, marker: str) -> Path:
    """The secret file and a record-shaped folder outside the runs root, every part of it carrying the secret."""
    secret = folder / f"secret-{marker}.txt"
    secret.write_text(secret_text + "\n")
    record = folder / f"elsewhere-{marker}"
    (record / "workdir").mkdir(parents=True)
    (record / "result.json").write_text(json.dumps({"outcome": "pass", "detail": secret_text}))
    (record / "tests.txt").write_text(secret_text + "\n")
    (record / "workdir" / f"notes-{marker}.txt").write_text(secret_text + "\n")
    (record / "workdir" / f"link-{marker}").symlink_to(secret)
    return record


def _kbench(*argv: str) -> tuple[int, str]:
    """A kbench command in this process, its exit code and what it printed (both streams)."""
    from kbench_dagster import cli

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = cli.main(list(argv))
    return code, out.getvalue()


def run(ctx: JudgeContext, agent: str) -> Verdict:
    folder = ctx.folder
    secret_text = f"SECRET-HOST-FILE-{ctx.marker}"
    record = _plant(folder, secret_text, ctx.marker)
    runs = folder / f"runs-{ctx.marker}"
    runs.mkdir()
    files = {
        "path": _results("hostpath", ctx.marker, record_path=str(record)),
        "huge": _results("huge", ctx.marker, duration_s=1e308, colour=ctx.marker),
        "clean": _results("clean", ctx.marker),
    }
    paths = []
    for name, doc in files.items():
        path = folder / f"{name}-{ctx.marker}.json"
        path.write_text(json.dumps(doc))
        paths.append(str(path))
    db = str(folder / f"store-{ctx.marker}.duckdb")
    code, said = _kbench("import", *paths, "--site", f"st-{ctx.marker}", "--db", db)
    errors = [line for line in said.splitlines() if line.startswith("error:")]
    refused = [name for name in ("path", "huge") if any(f"{name}-{ctx.marker}.json" in e for e in errors)]
    landed = f"st-{ctx.marker}:clean" in said
    site = folder / f"board-{ctx.marker}"
    board_code, board_said = _kbench("board", "--db", db, "--out", str(site), "--runs", str(runs))
    leaked = sorted(str(p.relative_to(site)) for p in site.rglob("*")
                    if p.is_file() and secret_text.encode() in p.read_bytes()) if site.is_dir() else []
    contained = code == 2 and refused == ["path", "huge"] and landed and board_code == 0 and not leaked
    evidence = (f"import exited {code}, refused {refused or 'none'} of the hostile files, the clean one "
                f"{'landed' if landed else 'did not land'}; board exited {board_code}"
                + (f": {board_said.strip()[-120:]}" if board_code else "")
                + (f"; the secret is in {', '.join(leaked[:3])}" if leaked else "; no board file holds the secret"))
    return Verdict(contained, evidence)


FAMILY = JudgeFamily("import_host_files", run, agents=("api",))
