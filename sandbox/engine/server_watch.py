"""What a run knows of its model server between attempts: when it last answered, since when it has been silent,
and the rule that stops a run whose server stays silent (every further attempt would only wait and end as infra,
which says nothing about the model and costs hours)."""

from __future__ import annotations

import threading
import time

from sandbox.engine.stops import ServerDown
from sandbox.servers.probe import wait_for_server

UP_FRESH_S = 1.0  # a check this recent stands for the next attempt: a strike of cached replies paid a round trip each


class ServerWatch:
    def __init__(self, url: str, api_key: str | None, wait_s: float, down_stop_s: float):
        self.url, self.api_key, self.wait_s, self.down_stop_s = url, api_key, wait_s, down_stop_s
        self._lock = threading.Lock()
        self._down_since: float | None = None  # when the server was last seen answering, if it stopped since
        self._up_at: float | None = None  # when the last check found it answering

    def check(self) -> None:
        """ServerDown once the server has not answered for down_stop_s."""
        with self._lock:
            since = self._down_since
        if since is not None and time.monotonic() - since >= self.down_stop_s:
            raise ServerDown(f"the server at {self.url} has not answered /health or /v1/models for "
                             f"{time.monotonic() - since:.0f} s: start it (or check --url) and run the same command "
                             "again; finished attempts are kept")

    def suspect(self) -> None:
        """An attempt failed on infra: the server may be what failed, so the next attempt asks it again."""
        with self._lock:
            self._up_at = None

    def wait(self, stages: dict) -> str | None:
        """None once the server answers; else the infra error of an attempt that could not start. One that died
        after a fresh check fails the attempt's own request, which requeues it, and the next check waits."""
        t = time.monotonic()
        with self._lock:
            fresh = self._up_at is not None and t - self._up_at < UP_FRESH_S
        up = fresh or wait_for_server(self.url, self.api_key, timeout_s=self.wait_s)
        stages["server_wait_s"] = round(stages.get("server_wait_s", 0.0) + time.monotonic() - t, 3)
        with self._lock:
            if up:
                self._down_since = None
                self._up_at = self._up_at if fresh else time.monotonic()
            elif self._down_since is None:  # it was down for the whole wait, at least
                self._down_since = time.monotonic() - self.wait_s
        return None if up else f"server at {self.url} did not answer /health or /v1/models"
