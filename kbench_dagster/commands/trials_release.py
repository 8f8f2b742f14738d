"""`kbench trials floor|version|audit|release`: what is known of the suite before any model is asked.

floor grades every reference answer and measures the grading (kbench_dagster/reporting/trial_floor.py): bounds,
never a model's measurement. version names the engine and the two fingerprints. audit reports each family's
variety and the prompts that differ only in case, whitespace or sentence-ending punctuation
(kbench_dagster/reporting/trial_audit.py); --strict makes such a pair fatal, for a proposed next edition.
release runs gate, probe, floor and emit in that order and stops at the first step that fails: only a suite that
passes them all gets a fingerprinted release manifest.

Each command takes --suite FOLDER: a trials folder laid out like task_defs/suites/trials (one folder per family);
by default the published one. (Its value is kept apart from kbench's global --suite, which names a suite of work.)
"""

from __future__ import annotations

import datetime as dt
import json
import sys
from collections import Counter
from pathlib import Path

from kbench_dagster.reporting.trial_audit import audit, render_audit
from kbench_dagster.reporting.trial_floor import failures, floor_rows, render_floor, sample_units, summarise
from sandbox.chatwork.trial_checks import gate_problems, probe
from sandbox.chatwork.trials import ToolTrials
from task_defs.trials.loader import TRIALS_DIR, load_families
from task_defs.trials.models import GRADES

RELEASE_DIR = "trials-release"  # under the runs folder: the default home of release manifests
STEPS = ("gate", "probe", "floor", "emit")


def engine_version() -> str:
    """The installed kbench-dagster's version; from a checkout never installed, pyproject.toml's."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("kbench-dagster")
    except PackageNotFoundError:
        import tomllib

        pyproject = Path(__file__).parents[2] / "pyproject.toml"
        try:
            return tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["version"]
        except (OSError, KeyError, tomllib.TOMLDecodeError):
            return "unknown"


def _folder(args) -> Path:
    return Path(args.folder) if args.folder else TRIALS_DIR


def _kind(args) -> ToolTrials:
    return ToolTrials(families=load_families(_folder(args)))


def _families(args, kind: ToolTrials) -> set[str] | None:
    names = [n.strip() for n in (args.family or "").split(",") if n.strip()]
    known = [f.id for f in kind.families]
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"--family: unknown family {', '.join(unknown)}; the families are {', '.join(known)}")
    return set(names) or None


# --------------------------------------------------------------------------------------------- version

def cmd_version(args) -> int:
    kind = _kind(args)
    print(f"engine  kbench-dagster {engine_version()}\nrules   {kind.rules}\nsuite   {kind.fingerprint}\n"
          f"trials  {len(kind.units)} in {len(kind.families)} families ({', '.join(f.id for f in kind.families)})"
          f"\nfolder  {_folder(args)}")
    return 0


# --------------------------------------------------------------------------------------------- floor

def cmd_floor(args) -> int:
    kind = _kind(args)
    wanted = _families(args, kind)
    units = [u for u in kind.units if (wanted is None or u.family.id in wanted)
             and (args.grade is None or u.grade == args.grade)]
    if not units:
        raise ValueError("no trial matches --family and --grade")
    units = sample_units(units, args.sample, args.seed)
    rows = floor_rows(units)
    summary = summarise(rows)
    print(render_floor(summary))
    bad = failures(rows)
    for r in bad:
        print(f"{r['trial']}: its reference answer fails ({r['cause']})", file=sys.stderr)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({"suite_fingerprint": kind.fingerprint, "rules": kind.rules,
                                               "summary": summary, "rows": rows}, indent=1) + "\n")
        print(f"{len(rows)} floor rows written to {args.json}", file=sys.stderr)
    return 1 if bad else 0


# --------------------------------------------------------------------------------------------- audit

def cmd_audit(args) -> int:
    doc = audit(load_families(_folder(args)))
    if args.json:
        print(json.dumps(doc, indent=1, ensure_ascii=False))
    else:
        print(render_audit(doc, f"{_folder(args)} ({doc['trials']} trials)"))
    if args.strict and doc["duplicates"]:
        print(f"--strict: {len(doc['duplicates'])} group(s) of prompts differ only in case, whitespace or "
              f"sentence-ending punctuation; reword or drop one of each before publishing", file=sys.stderr)
        return 1
    return 0


# --------------------------------------------------------------------------------------------- release

class StepFailed(Exception):
    def __init__(self, step: str, why: str):
        super().__init__(f"release stopped at step {STEPS.index(step) + 1}/{len(STEPS)} ({step}): {why}; "
                         "no manifest was written")
        self.step = step


def _gate(kind: ToolTrials) -> dict:
    problems = gate_problems(kind)
    for p in problems[:20]:
        print(f"  {p}")
    if problems:
        more = f" (first 20 shown of {len(problems)})" if len(problems) > 20 else ""
        raise StepFailed("gate", f"{len(problems)} problem(s){more}; `kbench trials gate` lists them")
    return {"problems": 0}


def _probe(kind: ToolTrials) -> dict:
    found = probe(kind)
    broken = [n for n, v in found.items() if v["kind"] == "structural" and v["score"] > 0]
    if broken:
        raise StepFailed("probe", "structural strategies score above 0: " + ", ".join(
            f"{n} {100 * found[n]['share']:.2f}%" for n in broken))
    chance = {n: v for n, v in found.items() if v["kind"] == "chance"}
    best = max(chance, key=lambda n: chance[n]["share"]) if chance else None
    return {"chance_floor": chance[best]["share"] if best else 0.0, "chance_strategy": best,
            "strategies": {n: {"kind": v["kind"], "share": v["share"], "trials": v["trials"]}
                           for n, v in found.items()}}


def _floor(kind: ToolTrials) -> dict:
    rows = floor_rows(kind.units)
    bad = failures(rows)
    if bad:
        raise StepFailed("floor", f"{len(bad)} reference answer(s) fail: "
                                  + ", ".join(r["trial"] for r in bad[:10]))
    return summarise(rows)


def _shown(folder: Path) -> str:
    """The suite's folder as a manifest may name it: relative to the repository, else its own name only (an absolute
    path would carry the host's user name)."""
    folder = Path(folder).resolve()
    repo = TRIALS_DIR.resolve().parents[2]
    return str(folder.relative_to(repo)) if folder.is_relative_to(repo) else folder.name


def manifest(kind: ToolTrials, folder: Path, probed: dict, floor: dict) -> dict:
    families = {}
    for fam in kind.families:
        units = [u for u in kind.units if u.family.id == fam.id]
        grades = Counter(u.grade for u in units)
        families[fam.id] = {"trials": len(units), "grades": {g: grades.get(g, 0) for g in GRADES},
                            "oracles": dict(sorted(Counter(u.trial.oracle.kind for u in units).items()))}
    return {"release": "kbench trials", "engine_version": engine_version(), "suite_fingerprint": kind.fingerprint,
            "rules_fingerprint": kind.rules, "suite_folder": _shown(folder), "trials": len(kind.units),
            "families": families, "gate": "green", "probe": probed,
            "floor": {**floor, "note": "bounds from the references, not a model's measurement"},
            "written_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")}


def cmd_release(args) -> int:
    folder = _folder(args)
    try:
        kind = _kind(args)
        print(f"release of {folder}: {len(kind.units)} trials in {len(kind.families)} families, suite "
              f"{kind.fingerprint[:16]}")
        print("1/4 gate: reference 100%, no-knowledge answers 0%, no repeated prompt")
        _gate(kind)
        print("  green")
        print("2/4 probe: structural strategies must score exactly 0")
        probed = _probe(kind)
        print(f"  all exactly 0; chance floor {100 * probed['chance_floor']:.1f}% ({probed['chance_strategy']})")
        print("3/4 floor: every reference graded and measured")
        floor = _floor(kind)
        t = floor["total"]
        print(f"  {t['passed']}/{t['trials']} pass; oracle ms median {t['latency_ms']['median']:.3f}, max "
              f"{t['latency_ms']['max']:.3f}")
        print("4/4 emit: the fingerprinted release manifest")
        out = Path(args.out) if args.out else Path(args.runs) / RELEASE_DIR / f"release-{kind.fingerprint[:16]}.json"
        doc = manifest(kind, folder, probed, floor)
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(json.dumps(doc, indent=1) + "\n")
        except OSError as exc:
            raise StepFailed("emit", f"cannot write {out}: {exc}") from None
    except StepFailed as exc:
        print(str(exc), file=sys.stderr)
        return 1
    print(f"  {out} written (suite {doc['suite_fingerprint'][:16]}, rules {doc['rules_fingerprint'][:16]})")
    return 0


# --------------------------------------------------------------------------------------------- parsers

def _suite_option(p) -> None:
    p.add_argument("--suite", dest="folder", metavar="FOLDER",
                   help="a trials folder laid out like task_defs/suites/trials (default: the published one)")


def add_release_parsers(tsub) -> None:
    s = tsub.add_parser("floor", help="bounds from the references: oracle latency, token estimate, heap per trial")
    _suite_option(s)
    s.add_argument("--family", help="only these families (comma-separated)")
    s.add_argument("--grade", choices=GRADES, help="only trials of this grade")
    s.add_argument("--sample", type=int, metavar="N", help="a deterministic sample of N trials (picked by --seed)")
    s.add_argument("--seed", type=int, default=7, help="the sample's seed (default 7)")
    s.add_argument("--json", metavar="OUT", help="write the rows and the summary to OUT")
    s.set_defaults(func=cmd_floor)
    s = tsub.add_parser("version", help="engine version, rules and suite fingerprints, trials and families")
    _suite_option(s)
    s.set_defaults(func=cmd_version)
    s = tsub.add_parser("audit", help="read-only coverage per family and case/space/punctuation-only duplicates")
    _suite_option(s)
    s.add_argument("--strict", action="store_true", help="exit 1 when such a duplicate exists (a next edition)")
    s.add_argument("--json", action="store_true", help="the coverage as JSON")
    s.set_defaults(func=cmd_audit)
    s = tsub.add_parser("release", help="gate, probe, floor, then the fingerprinted release manifest")
    _suite_option(s)
    s.add_argument("--out", help=f"the manifest's path (default RUNS/{RELEASE_DIR}/release-SUITEFP.json)")
    s.add_argument("--runs", default="runs", metavar="DIR", help="the runs folder (default ./runs)")
    s.set_defaults(func=cmd_release)
