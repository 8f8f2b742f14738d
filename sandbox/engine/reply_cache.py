"""Replies kept on disk by exactly what was asked, so a strike that is run again, or extended from one sample to
three, pays only for requests it has not made before.

The key is a hash of the endpoint, the model, the attempt and the whole request as sent (messages, tools,
response format, sampling, token cap): anything that changes how the model is asked changes the key, so a cached
reply is never served for a different question. Refused requests and server failures are not kept.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path


class ReplyCache:
    def __init__(self, root: Path | str):
        self.root = Path(root)

    @staticmethod
    def key(asked: dict) -> str:
        return hashlib.sha256(json.dumps(asked, sort_keys=True, ensure_ascii=False, default=str).encode()).hexdigest()

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict | None:
        """The kept reply, or None (never kept, or unreadable: a half-written file is a miss, not an error)."""
        try:
            doc = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return doc if isinstance(doc, dict) else None

    def put(self, key: str, reply: dict) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(reply, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, path)  # whole or absent: a killed run never leaves half a reply to be read back
