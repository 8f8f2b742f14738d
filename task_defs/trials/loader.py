"""Load the trial families (task_defs/suites/trials/FAMILY/{job.toml,items.jsonl}); a broken file names the file,
the trial and the field. Beyond each model's own checks, a trial must fit its family's tools: it offers only
tools the family defines, its oracle's calls name offered tools with arguments those tools take, and every
argument a tool requires has a rule (else a right call could be refused)."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from task_defs.errors import TaskFileError
from task_defs.itemfiles import ITEMS_FILE, SPEC_FILE, load_items, load_spec
from task_defs.loader import SUITES_DIR
from task_defs.trials.models import CALL_KINDS, Trial, TrialFamily

TRIALS_DIR = SUITES_DIR / "trials"
GENERATED_FILE = "generated.jsonl"
_ROOT = Path(__file__).parents[2]  # beside task_defs/: the sandbox package, where the judge's side of the rules is
# Every file whose change can change a trial's verdict: the format and the grading, the shell witness (its sandbox
# run and what it takes for the program executed), the bounded parsers of replies, the reader of the agent's files,
# how calls written in text and answers are read from a reply, and the bounded matcher of stdout_regex.
RULES = (*(Path(__file__).parent / f for f in ("grading.py", "answers.py", "text_oracles.py", "models.py")),
         *(_ROOT / "sandbox" / rel for rel in ("chatwork/shell_oracle.py", "judge/witness.py", "judge/parse.py",
                                               "judge/files.py", "agents/textcalls.py", "chatwork/formats.py",
                                               "judge/matcher.py")),
         # the mock machine (its programs, catalogue and fixtures) decides the machine families' verdicts
         *sorted((Path(__file__).parent / "machine").glob("*.py")))


@dataclass(frozen=True)
class Family:
    id: str
    folder: Path
    spec: TrialFamily
    trials: tuple[Trial, ...]


def _tool_problem(name: str, tool: dict) -> str | None:
    params = tool.get("parameters")
    if not isinstance(tool.get("description"), str) or not tool["description"].strip():
        return f"tool {name!r} has no description"
    if not isinstance(params, dict) or params.get("type") != "object" or not isinstance(params.get("properties"), dict):
        return f"tool {name!r}: parameters must be a JSON schema of type object with properties"
    missing = set(params.get("required", [])) - set(params["properties"])
    return f"tool {name!r} requires {sorted(missing)} but does not define them" if missing else None


def tools_of(trial: Trial, family_tools: dict[str, dict]) -> dict[str, dict]:
    """The tools the trial can offer: the family's, and its own (which win on a shared name)."""
    return {**family_tools, **trial.tool_specs} if trial.tool_specs else family_tools


def fit_problem(trial: Trial, family_tools: dict[str, dict]) -> tuple[str, str] | None:
    """(field, message) when the trial does not fit its tools or its oracle cannot be met."""
    for name, tool in trial.tool_specs.items():
        problem = _tool_problem(name, tool)
        if problem:
            return f"tool_specs.{name}", problem
    tools = tools_of(trial, family_tools)
    for name in trial.tools:
        if name not in tools:
            return "tools", f"{name!r} is not one of the family's tools {sorted(tools)} nor in tool_specs"
    o = trial.oracle
    if o.kind in CALL_KINDS:
        for i, rule in enumerate(o.calls):
            if rule.name not in trial.tools:
                return f"oracle.calls.{i}.name", f"{rule.name!r} is not offered by this trial {trial.tools}"
            params = tools[rule.name]["parameters"]
            unknown = sorted(set(rule.args) - set(params["properties"]))
            if unknown:
                return f"oracle.calls.{i}.args", f"{rule.name} takes no argument {unknown[0]!r}"
            uncovered = sorted(k for k in params.get("required", []) if k not in rule.args or rule.args[k].optional)
            if uncovered:
                return f"oracle.calls.{i}.args", f"{rule.name} requires {uncovered[0]!r}: give it a rule"
    if o.kind in ("shell", "machine") and "command" not in tools[o.tool]["parameters"]["properties"]:
        return "oracle.tool", f"{o.tool} takes no 'command' argument: the {o.kind} oracle runs that"
    if o.kind == "json_schema":
        problem = _schema_problem(json.dumps(o.json_schema, sort_keys=True))
        if problem:
            return "oracle.schema", f"not a valid JSON schema: {problem}"
    return None


@functools.lru_cache(maxsize=4096)
def _schema_problem(schema_json: str) -> str | None:
    """Checking a schema against the meta-schema takes milliseconds, and generated trials share a few dozen
    schemas among hundreds: each distinct one is checked once in a process, and one found valid is remembered
    for later processes (checking the suite's 94 schemas was a fifth of a second of every trials command)."""
    digest = hashlib.sha256(schema_json.encode("utf-8")).hexdigest()
    if digest in _schemas_found_valid():
        return None
    import jsonschema

    try:
        jsonschema.Draft202012Validator.check_schema(json.loads(schema_json))
    except jsonschema.SchemaError as exc:
        return exc.message
    _remember_valid(digest)
    return None


def _valid_schemas_file() -> Path:
    """Digests of the schemas the meta-schema check passed, under the user's cache folder, per jsonschema version
    (another version may judge differently). Only a passed check is kept: a broken schema is checked, and
    refused, every time."""
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(cache) / "kbench" / f"valid-trial-schemas-jsonschema-{_jsonschema_version()}.txt"


@functools.lru_cache(maxsize=1)
def _jsonschema_version() -> str:
    from importlib.metadata import version  # reads the installed packages' metadata: once

    return version("jsonschema")


@functools.lru_cache(maxsize=1)
def _schemas_found_valid() -> frozenset[str]:
    try:
        return frozenset(_valid_schemas_file().read_text(encoding="ascii").split())
    except (OSError, UnicodeDecodeError):
        return frozenset()


def _remember_valid(digest: str) -> None:
    path = _valid_schemas_file()
    with contextlib.suppress(OSError):  # a cache only: a read-only home just means checking again next time
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a", encoding="ascii") as fh:  # one short line per append: whole even beside another writer
            fh.write(digest + "\n")


def load_family(folder: Path) -> Family:
    folder = Path(folder)
    spec = load_spec(folder, TrialFamily)
    if spec.family != folder.name:
        raise TaskFileError(folder / SPEC_FILE, "family", f"{spec.family!r} must be the folder's name {folder.name!r}")
    for name, tool in spec.tools.items():
        problem = _tool_problem(name, tool)
        if problem:
            raise TaskFileError(folder / SPEC_FILE, f"tools.{name}", problem)
    trials = load_items(folder, Trial, lambda t: fit_problem(t, spec.tools))
    if (folder / GENERATED_FILE).is_file():  # task_defs/trials/generate/ writes it
        trials += load_items(folder, Trial, lambda t: fit_problem(t, spec.tools), GENERATED_FILE)
    return Family(folder.name, folder, spec, tuple(trials))


def load_families(root: Path | None = None) -> list[Family]:
    root = Path(root) if root else TRIALS_DIR
    if not root.is_dir():
        raise TaskFileError(root, None, "trials folder does not exist")
    families = [load_family(d) for d in sorted(root.iterdir()) if d.is_dir() and d.name != "__pycache__"]
    seen: dict[str, str] = {}
    for fam in families:
        for t in fam.trials:
            if t.id in seen:
                raise TaskFileError(fam.folder / ITEMS_FILE, f"{t.id}.id", f"the id is used in {seen[t.id]} too")
            seen[t.id] = fam.id
    return families


def normalise(text: str) -> str:
    """Words with case, runs of spaces and a closing full stop set aside: two prompts that differ only so ask the
    same question."""
    return re.sub(r"\s+", " ", text.casefold()).strip().rstrip(".!?").strip()


def normalised_prompt(trial: Trial) -> str:
    return normalise(trial.messages[-1].content)


def rules_fingerprint() -> str:
    """Changes whenever the oracle rules (the format and the grading) change: evidence made under other rules is
    not to be read under these."""
    h = hashlib.sha256()
    for path in RULES:
        h.update(path.read_bytes())
    return h.hexdigest()


def fingerprint(families: list[Family]) -> str:
    """Changes whenever a trial, a tool or the oracle rules change: what decides a verdict."""
    h = hashlib.sha256(rules_fingerprint().encode())
    for fam in families:
        for name in (SPEC_FILE, ITEMS_FILE, GENERATED_FILE):
            if (fam.folder / name).is_file():
                h.update(f"{fam.id}/{name}\0".encode())
                h.update((fam.folder / name).read_bytes())
    return h.hexdigest()
