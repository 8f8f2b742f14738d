"""Generated tool-use trials: a deterministic generator that writes generated.jsonl beside each family's
hand-written items.jsonl (the loader reads both).

Each trial comes from a template in several phrasings over pools of names, places, numbers, files and dates, and is
witnessed before it is kept: it is a valid Trial that fits its family's tools (loader.fit_problem), its own reference
answer passes, an empty reply and a bare `{}` score 0, and its prompt differs (loader.normalise) from every seed
trial and every other generated one. A trial that fails a witness is a bug in a template, so it raises instead of
being dropped. Label trials are also refused when their text names the right label more often than the others (a
model could read the answer off the words), and their answers are spread evenly over each fixed label list, so the
chance strategies of `kbench trials probe` stay at the floor.

Each family draws from its own Rng (rng.py), seeded from the one seed, so editing one family's templates leaves
the other families' draws alone. build.py turns a family's templates into witnessed trials; select, flows, classify,
extract, fill, robust and hotkeys hold each family's templates (extract_purchases holds some of extract's;
select_pools, classify_texts, extract_fields, fill_pools, robust_pools and hotkeys_pools hold the larger tables);
words, pools and rules are what the families share.

    python -m task_defs.trials.generate           # write every family's generated.jsonl
    python -m task_defs.trials.generate --check   # exit 1, naming the file, when one on disk is not what it makes
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from task_defs.itemfiles import ITEMS_FILE, load_items, load_spec
from task_defs.trials.generate.build import GeneratorError, build, witness
from task_defs.trials.generate.classify import classify_templates, gives_away
from task_defs.trials.generate.extract import EXTRACT
from task_defs.trials.generate.fill import fill_templates
from task_defs.trials.generate.flows import flows_templates
from task_defs.trials.generate.hotkeys import HOTKEY_FACTS, hotkeys_templates
from task_defs.trials.generate.machine_desktop import desktop_templates
from task_defs.trials.generate.machine_services import packages_templates
from task_defs.trials.generate.rng import Rng
from task_defs.trials.generate.robust import robust_templates
from task_defs.trials.generate.select import select_templates
from task_defs.trials.loader import GENERATED_FILE, TRIALS_DIR, normalise
from task_defs.trials.models import Trial, TrialFamily

__all__ = ["FAMILIES", "SEED", "TRIALS_DIR", "GeneratorError", "Rng", "Trial", "generate", "gives_away", "main",
           "render", "witness"]

SEED = 7
# family -> (how many trials, its templates, whether distractor tools are offered); one family per line
TARGETS = {
    "select": (450, select_templates, True),
    "flows": (350, flows_templates, True),
    "classify": (300, classify_templates, False),
    "extract": (220, lambda: EXTRACT, False),
    "fill": (120, fill_templates, True),
    "robust": (120, robust_templates, True),
    "hotkeys": (HOTKEY_FACTS, hotkeys_templates, False),  # every fact of hotkeys_pools once: 80
    "packages": (100, packages_templates, True),  # the mock machine (task_defs/trials/machine/): pacman, systemctl
    "desktop": (80, desktop_templates, True),  # the mock machine's deskctl
}
FAMILIES = tuple(TARGETS)


def generate(seed: int = SEED, root: Path | None = None) -> dict[str, list[Trial]]:
    """family -> its generated trials, the same for the same seed; deduplicated against the seed trials of every
    family (items.jsonl), never against an earlier generated.jsonl."""
    root = Path(root) if root else TRIALS_DIR
    specs = {fam: load_spec(root / fam, TrialFamily) for fam in FAMILIES}
    seen = {normalise(t.messages[-1].content): t.id for fam in FAMILIES for t in load_items(root / fam, Trial)}
    seen.update(_other_prompts(root))
    out = {}
    for i, fam in enumerate(FAMILIES):
        n, templates, offers = TARGETS[fam]
        out[fam] = build(fam, n, templates(), Rng(seed * 16 + i), seen, specs[fam].tools, offers)
    return out


def _other_prompts(root: Path) -> dict[str, str]:
    """The prompts of the families this package does not generate for: the gate refuses a prompt asked twice across
    the whole suite. Read as plain JSON, so a family that is being edited elsewhere cannot stop generation."""
    out = {}
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and p.name not in FAMILIES):
        for name in (ITEMS_FILE, GENERATED_FILE):
            path = folder / name
            for line in path.read_text(encoding="utf-8").splitlines() if path.is_file() else []:
                try:
                    raw = json.loads(line)
                    out[normalise(raw["messages"][-1]["content"])] = str(raw.get("id"))
                except (ValueError, KeyError, IndexError, TypeError):
                    continue
    return out


def render(trials: list[Trial]) -> str:
    """The file text: one compact object per line, fields in the model's order, nothing but what was set."""
    return "".join(json.dumps(t.model_dump(mode="json", by_alias=True, exclude_unset=True), ensure_ascii=False,
                              separators=(",", ":")) + "\n" for t in trials)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m task_defs.trials.generate",
                                 description="Write (or with --check, verify) the generated trials of every family.")
    ap.add_argument("--check", action="store_true", help="exit 1 when a generated.jsonl differs from what it makes")
    ap.add_argument("--seed", type=int, default=SEED)
    args = ap.parse_args(argv)
    made = generate(args.seed)
    stale = []
    for fam, trials in made.items():
        path = TRIALS_DIR / fam / GENERATED_FILE
        text = render(trials)
        if args.check:
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                stale.append(path)
        else:
            path.write_text(text, encoding="utf-8")
    total = sum(len(t) for t in made.values())
    if stale:
        for path in stale:
            print(f"{path}: stale; run python -m task_defs.trials.generate", file=sys.stderr)
        return 1
    print(f"{'checked' if args.check else 'wrote'} {total} generated trials: "
          + ", ".join(f"{fam} {len(t)}" for fam, t in made.items()))
    return 0
