"""Talking to the model server outside any agent: is it up, what does it say about itself."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from typing import Callable


def _root(url: str) -> str:
    return url.rstrip("/").removesuffix("/v1")


def fetch_json(url: str, api_key: str | None = None, timeout: float = 5.0):
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {api_key}"} if api_key else {})
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        return json.loads(resp.read().decode("utf-8", "replace"))


def server_problem(url: str, api_key: str | None = None) -> str | None:
    """None when /health (llama.cpp style) or /v1/models answers; else what went wrong, in a few words."""
    problem = "no answer"
    for probe in (_root(url) + "/health", url.rstrip("/") + "/models"):
        try:
            fetch_json(probe, api_key, timeout=3.0)
            return None
        except urllib.error.HTTPError as exc:
            problem = f"HTTP {exc.code} from {probe}"
        except urllib.error.URLError as exc:
            problem = str(getattr(exc.reason, "strerror", None) or exc.reason).lower()
        except (OSError, ValueError) as exc:
            problem = str(exc) or type(exc).__name__
    return problem


def server_up(url: str, api_key: str | None = None) -> bool:
    return server_problem(url, api_key) is None


def wait_for_server(url: str, api_key: str | None = None, timeout_s: float = 60.0, poll_s: float = 1.0,
                    on_wait: Callable[[float, str], None] | None = None, say_every_s: float = 10.0,
                    clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep) -> bool:
    """Probe until the server answers (True) or timeout_s passes (False). on_wait(seconds waited, problem) is
    called at the first failed probe, at once, and then every say_every_s, so a user hears of a wrong URL
    within one probe instead of after the whole wait."""
    start = clock()
    said = None
    while True:
        problem = server_problem(url, api_key)
        if problem is None:
            return True
        waited = clock() - start
        if on_wait and (said is None or waited - said >= say_every_s):
            on_wait(waited, problem)
            said = waited
        if waited >= timeout_s:
            return False
        sleep(poll_s)


def describe_server(url: str, api_key: str | None = None) -> dict:
    """The /health and /v1/models replies, for the manifest (errors recorded as text)."""
    out = {}
    for name, probe in (("health", _root(url) + "/health"), ("models", url.rstrip("/") + "/models")):
        try:
            out[name] = fetch_json(probe, api_key)
        except (urllib.error.URLError, OSError, ValueError) as exc:
            out[name] = {"error": str(exc)[:300]}
    return out


def _props(url: str, api_key: str | None) -> dict:
    """llama.cpp's /props, or {} when the server has none (another engine) or does not answer."""
    try:
        props = fetch_json(_root(url) + "/props", api_key, timeout=3.0)
    except (urllib.error.URLError, OSError, ValueError):
        return {}
    return props if isinstance(props, dict) else {}


def _count(n, least: int) -> int | None:
    return n if isinstance(n, int) and not isinstance(n, bool) and n >= least else None


def reported_slots(url: str, api_key: str | None = None) -> int | None:
    """How many requests the server says it takes at once (llama.cpp: /props total_slots), or None."""
    return _count(_props(url, api_key).get("total_slots"), 1)


def reported_context(url: str, api_key: str | None = None) -> int | None:
    """The server's context window in tokens (llama.cpp: /props default_generation_settings.n_ctx), or None."""
    props = _props(url, api_key)
    settings = props.get("default_generation_settings")
    n = settings.get("n_ctx") if isinstance(settings, dict) else None
    return _count(n if n is not None else props.get("n_ctx"), 256)
