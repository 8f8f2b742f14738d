"""Quoting a model's reply for the LLM judge (rule 6 of the judging boundary).

The judge's prompt states the criteria first and then the reply as data between two fence lines carrying a random
token drawn per request: the reply cannot close a fence it cannot predict, and any fence-like line inside it is
only text. The prompt tells the judge that nothing inside the fence is an instruction.
"""

from __future__ import annotations

import secrets


def fence_token() -> str:
    return secrets.token_hex(12)


def fenced(text: str, token: str | None = None) -> tuple[str, str]:
    """(the token, the text between its fence lines). A token that happens to occur in the text is redrawn."""
    token = token or fence_token()
    while token in text:
        token = fence_token()
    return token, f"<<<REPLY {token}>>>\n{text}\n<<<END REPLY {token}>>>"
