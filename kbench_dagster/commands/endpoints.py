"""`kbench endpoints add|list`, and the endpoint and sampling options every run command shares.

An endpoint is a model server under a name that means something a day later ("lab-4090", "laptop"), with the
hardware its owner declares. A run names it with --endpoint NAME (its URL and hardware come from the list), or
gives --url: a URL someone added under a name is that endpoint too. What the server says of itself (engine, build,
model file, quantisation, context, slots, sampling defaults) is asked at every run start and kept in the manifest.
"""

from __future__ import annotations

import argparse
import json
import sys

from kbench_dagster import service
from kbench_dagster.keys import check_endpoint_name
from kbench_dagster.parquet_store import open_store
from kbench_dagster.run_settings import DEFAULT_URL, add_run_options
from kbench_dagster.store import DEFAULT_DB, ResultsStore
from kbench_dagster.terminal import visible
from sandbox.servers.hardware import HARDWARE_CLASSES, endpoint_record

SHOWN = ("name", "url", "hardware_class", "hardware", "engine", "build", "model_file", "quant", "n_ctx", "slots",
         "site")


def add_endpoint_options(s: argparse.ArgumentParser) -> None:
    """Which endpoint, what it runs on, and the sampling and reasoning effort sent with every request."""
    add_run_options(s, "endpoint", "hardware", "hardware_class", "site", "temperature", "top_p", "sampling_seed",
                    "reasoning_effort")


def endpoint_settings(args, store: ResultsStore) -> dict:
    """The run settings the endpoint and sampling options mean: --endpoint NAME brings its URL and declared
    hardware; a --url that an endpoint was added with is that endpoint; options given win over the list."""
    known = {e["name"]: e for e in store.endpoints()}
    name = args.endpoint
    if name is not None and name not in known:
        raise ValueError(f"--endpoint {name}: no such endpoint; add it with `kbench endpoints add {name} URL` "
                         f"(known: {', '.join(known) or 'none'})")
    if name is None and args.url:
        name = next((n for n, e in known.items() if e["url"].rstrip("/") == args.url.rstrip("/")), None)
    entry = known.get(name) or {}
    if args.url and entry and entry["url"].rstrip("/") != args.url.rstrip("/"):
        raise ValueError(f"--endpoint {name} is {entry['url']}, not {args.url}: give one of them")
    declared = json.loads(entry.get("declared") or "[]")

    def pick(flag, key):
        return flag if flag is not None else (entry.get(key) if key in declared else None)

    return {"url": args.url or entry.get("url") or DEFAULT_URL, "endpoint": name,
            "hardware": pick(args.hardware, "hardware"), "hardware_class": pick(args.hardware_class, "hardware_class"),
            "site": pick(args.site, "site"), "temperature": args.temperature, "top_p": args.top_p,
            "sampling_seed": args.sampling_seed}


def cmd_endpoints(args) -> int:
    store = open_store(args.db)
    if args.action == "add":
        if not args.name or not args.url:
            raise ValueError("kbench endpoints add NAME URL [--hardware TEXT] [--hardware-class CLASS] [--site TEXT]")
        check_endpoint_name(args.name)
        record = endpoint_record(args.url, service.cli_api_key(),
                                 {"name": args.name, "hardware": args.hardware, "hardware_class": args.hardware_class,
                                  "site": args.site})
        store.save_endpoint(record, args.url)
        said = "" if record["answered"] else " (the server did not answer: what it would say is unknown for now)"
        print(f"endpoint {args.name}: {args.url}, {record['engine']} {record['build']}, model file "
              f"{record['model_file']} ({record['quant']}), context {record['n_ctx']}, {record['slots']} slot(s); "
              f"hardware {record['hardware']} ({record['hardware_class']}){said}")
        return 0
    rows = store.endpoints()
    if not rows:
        print("no endpoints yet: kbench endpoints add NAME URL --hardware-class cpu|entry-gpu|mid-gpu|high-gpu|cloud",
              file=sys.stderr)
        return 0
    widths = {c: max(len(c), *(len(str(r[c])) for r in rows)) for c in SHOWN}
    print("  ".join(c.ljust(widths[c]) for c in SHOWN))
    for r in rows:
        print(visible("  ".join(str(r[c]).ljust(widths[c]) for c in SHOWN), layout=False))
    return 0


def add_endpoints_parser(sub) -> None:
    s = sub.add_parser("endpoints", help="model servers under names, with their hardware: add NAME URL, list")
    s.add_argument("action", choices=["add", "list"])
    s.add_argument("name", nargs="?", metavar="NAME")
    s.add_argument("url", nargs="?", metavar="URL")
    s.add_argument("--hardware", metavar="TEXT", help="what the server runs on, e.g. 'RTX 4090, 24 GB'")
    s.add_argument("--hardware-class", choices=HARDWARE_CLASSES, help="boards rank within a class")
    s.add_argument("--site", metavar="TEXT", help="where the server is")
    s.add_argument("--db", default=str(DEFAULT_DB))
    s.set_defaults(func=cmd_endpoints)
