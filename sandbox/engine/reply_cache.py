"""Replies kept on disk by exactly what was asked, so a strike that is run again, or extended from one sample to
three, pays only for requests it has not made before.

The key is a hash of the endpoint, the model, the attempt and the whole request as sent (messages, tools,
response format, sampling, token cap): anything that changes how the model is asked changes the key, so a cached
reply is never served for a different question. Refused requests and server failures are not kept.

The replies are lines of one file (replies.jsonl, appended whole: sandbox/engine/jsonlines.py), read into memory
once and then only as far as it has grown: a re-run of 1,500 trials asks the index 2,300 times, where a file per
reply was 2,300 opens. Several processes may share a cache; a reply another one added after this one read the file
is found when this one misses it. A cache written as a file per reply (KEY[:2]/KEY.json) is still read.
"""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path

import orjson

from sandbox.engine.jsonlines import append_line, json_bytes, parse_lines

PACK = "replies.jsonl"
_KEY_OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME


class ReplyCache:
    def __init__(self, root: Path | str):
        self.root = Path(root)
        self._index: dict[str, dict] = {}
        self._read_to = 0  # how far into the pack the index has read
        self._lock = threading.Lock()

    @staticmethod
    def key(asked: dict) -> str:
        try:
            return hashlib.sha256(orjson.dumps(asked, default=str, option=_KEY_OPTIONS)).hexdigest()
        except orjson.JSONEncodeError:  # a lone surrogate a reply carried back into the next request
            return ReplyCache.earlier_key(asked)

    @staticmethod
    def earlier_key(asked: dict) -> str:
        """The key a cache made before 2026-12-03 kept the same request under (the json module's text). A lone
        surrogate made that cache fail to encode the request, so nothing was kept under it: any key will do."""
        text = json.dumps(asked, sort_keys=True, ensure_ascii=False, default=str)
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()

    def get(self, key: str, asked: dict | None = None) -> dict | None:
        """The kept reply, or None (never kept, or unreadable: a torn line is a miss, not an error). With `asked`
        (what `key` was made of), a miss also looks under the key an earlier cache used, so a cache made before
        the key changed is not paid for again."""
        with self._lock:
            kept = self._index.get(key)
            if kept is None:
                self._read_on()
                kept = self._index.get(key)
        if kept is not None:
            return kept
        if asked is not None:
            key = self.earlier_key(asked)
            with self._lock:
                kept = self._index.get(key)
        return kept if kept is not None else self._single(key)

    def holds_any(self) -> bool:
        """Whether any reply is kept at all: a strike before the first skips the replay pass, which would try every
        attempt in vain."""
        with self._lock:
            self._read_on()
            if self._index:
                return True
        return self.root.is_dir() and any(p.is_dir() for p in self.root.iterdir())

    def put(self, key: str, reply: dict) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        before, after = append_line(self.root / PACK, json_bytes({"key": key, "reply": reply}) + b"\n")
        with self._lock:
            self._index[key] = reply
            if before == self._read_to:  # nothing of another's in between: no need to read back our own line
                self._read_to = after

    def _read_on(self) -> None:
        """Index the lines written since the last read (by any process), up to the last whole one."""
        try:
            with open(self.root / PACK, "rb") as fh:
                fh.seek(self._read_to)
                data = fh.read()
        except FileNotFoundError:
            return
        whole = data.rfind(b"\n") + 1  # a line still being written is read next time
        self._read_to += whole
        for e in parse_lines(data[:whole]):
            if isinstance(e.get("key"), str) and isinstance(e.get("reply"), dict):
                self._index[e["key"]] = e["reply"]

    def _single(self, key: str) -> dict | None:
        try:
            doc = json.loads((self.root / key[:2] / f"{key}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return doc if isinstance(doc, dict) else None
