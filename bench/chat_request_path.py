"""The chat request path alone against a scripted server of fixed slots: N worker threads asking through
ChatSession (the server's slots leased per request, as every chat-only kind asks), no attempt records, no grading.
The server's busy window against its ideal (requests x latency / slots) is then the cost of the path itself:
leasing a slot, the OpenAI client building and sending the request, the server reading it, the stream read back.
`--semaphore` leases from an in-process semaphore instead of the cross-process lock files.

    .venv/bin/python bench/chat_request_path.py [--requests 400] [--workers 8] [--slots 4] [--latency 0.1]
"""

import argparse
import contextlib
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


class SemaphoreSlots:
    """The in-process stand-in for ServerSlots (the same lease() shape)."""

    def __init__(self, slots: int):
        self.slots, self._sem = slots, threading.Semaphore(slots)

    @contextlib.contextmanager
    def lease(self):
        t = time.monotonic()
        with self._sem:
            yield 0, time.monotonic() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=400)
    ap.add_argument("--workers", type=int, default=8)
    ap.add_argument("--slots", type=int, default=4)
    ap.add_argument("--latency", type=float, default=0.1)
    ap.add_argument("--semaphore", action="store_true")
    args = ap.parse_args()
    sys.path.insert(0, str(REPO))
    from sandbox.agents.record import EventLog
    from sandbox.chatwork.trials import ToolTrials, request_of
    from sandbox.engine.chat import ChatClient
    from sandbox.engine.conditions import select_conditions
    from sandbox.engine.slots import ServerSlots
    from sandbox.servers.scripted import ScriptedServer

    units = ToolTrials().units[: args.requests]
    with ScriptedServer("oracle", suite="trials", port=0, slots=args.slots, latency=args.latency) as srv, \
            tempfile.TemporaryDirectory() as d:
        client = ChatClient(srv.url, srv.model_id, None)
        slots = SemaphoreSlots(args.slots) if args.semaphore else ServerSlots(srv.url, args.slots, Path(d) / "s")
        cond = select_conditions("base")[0]
        todo, lock = list(units), threading.Lock()

        def work(i: int) -> None:
            events = EventLog(Path(d) / f"events{i}.jsonl")
            while True:
                with lock:
                    if not todo:
                        return
                    unit = todo.pop()
                messages, tools, fmt = request_of(unit, 1)
                client.session(cond, 60, events, slots).ask(messages, tools=tools or None, response_format=fmt)

        threads = [threading.Thread(target=work, args=(i,)) for i in range(args.workers)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        n = srv.chat_requests
        ideal = n * args.latency / args.slots
        print(f"{n} requests, {args.workers} workers, {args.slots} slots x {args.latency:g} s, "
              f"{'semaphore' if args.semaphore else 'lock files'}: ideal {ideal:.2f} s, server busy "
              f"{srv.busy_s:.2f} s, {ideal / srv.busy_s:.3f} of ideal")


if __name__ == "__main__":
    main()
