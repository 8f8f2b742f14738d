"""Talking to the model server outside any agent: is it up, what does it say about itself."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request


def _root(url: str) -> str:
    return url.rstrip("/").removesuffix("/v1")


def fetch_json(url: str, api_key: str | None = None, timeout: float = 5.0):
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {api_key}"} if api_key else {})
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        return json.loads(resp.read().decode("utf-8", "replace"))


def server_up(url: str, api_key: str | None = None) -> bool:
    """True when /health (llama.cpp style) or /v1/models answers."""
    for probe in (_root(url) + "/health", url.rstrip("/") + "/models"):
        try:
            fetch_json(probe, api_key, timeout=3.0)
            return True
        except (urllib.error.URLError, OSError, ValueError):
            continue
    return False


def wait_for_server(url: str, api_key: str | None = None, timeout_s: float = 60.0, poll_s: float = 1.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while True:
        if server_up(url, api_key):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(poll_s)


def describe_server(url: str, api_key: str | None = None) -> dict:
    """The /health and /v1/models replies, for the manifest (errors recorded as text)."""
    out = {}
    for name, probe in (("health", _root(url) + "/health"), ("models", url.rstrip("/") + "/models")):
        try:
            out[name] = fetch_json(probe, api_key)
        except (urllib.error.URLError, OSError, ValueError) as exc:
            out[name] = {"error": str(exc)[:300]}
    return out


def reported_slots(url: str, api_key: str | None = None) -> int | None:
    """How many requests the server says it takes at once (llama.cpp: /props total_slots), or None."""
    try:
        props = fetch_json(_root(url) + "/props", api_key, timeout=3.0)
    except (urllib.error.URLError, OSError, ValueError):
        return None
    n = props.get("total_slots") if isinstance(props, dict) else None
    return n if isinstance(n, int) and not isinstance(n, bool) and n >= 1 else None
