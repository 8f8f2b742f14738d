"""`kbench swe --dataset F.jsonl --trusted-dataset true [--instance ID] validate|run ...`: a SWE-style dataset
(task_defs/importers/swe.py) as a suite. Nothing of the dataset is read without the trust flag. The dataset becomes
ordinary task folders, and `validate` and `run` are the same commands as for any suite (every option after the
action is theirs), so its attempts go through the one run loop into the same store and board."""

from __future__ import annotations

import argparse
import sys

from task_defs.importers.materialize import materialize
from task_defs.importers.swe import TRUST_HINT, load_swe


def cmd_swe(args) -> int:
    if args.trusted_dataset != "true":
        print(f"kbench swe: {args.dataset}: nothing was read or run: {TRUST_HINT}", file=sys.stderr)
        return 2
    name, fixtures, files = load_swe(args.dataset, trusted=True, instance=args.instance)
    folder = materialize(name, fixtures, files)
    print(f"swe: {len(fixtures)} instance(s) of {args.dataset} as suite {name} ({folder})", file=sys.stderr)
    from kbench_dagster.cli import main  # the one CLI, so validate and run mean what they mean everywhere

    return main(["--suite", str(folder), args.action, *args.rest])


def add_swe_parser(sub) -> None:
    s = sub.add_parser("swe", help="a SWE-style JSONL dataset (trusted only) validated or run as a suite")
    s.add_argument("--dataset", required=True, metavar="F.jsonl")
    s.add_argument("--trusted-dataset", default="false", choices=["true", "false"],
                   help="the dataset's commands run on this machine: say true only for a dataset you trust")
    s.add_argument("--instance", help="one instance_id only")
    s.add_argument("action", choices=["validate", "run"])
    s.add_argument("rest", nargs=argparse.REMAINDER, help="the options of `kbench validate` or `kbench run`")
    s.set_defaults(func=cmd_swe)
