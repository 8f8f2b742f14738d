"""Reading and judging one breakdown answer, by the job's answer form.

A numeric answer (money, number, count) is right when the reply holds exactly one number and it equals the key
(money to the cent; thousands separators and a currency sign or unit around it are fine); a reply with two numbers
is invalid, since a reader cannot tell which is meant. A date is right when the reply holds exactly one YYYY-MM-DD
and it is the key's. A name is right when it equals the key after trimming, case-folding, collapsing spaces and
dropping surrounding quotes, a final full stop and a leading "the ".
"""

from __future__ import annotations

import datetime as dt
import re

_NUMBER = re.compile(r"(?<![\w.])-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w.]*\d)")
_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_SPACE = re.compile(r"\s+")
QUOTES = "\"'`\u201c\u201d\u2018\u2019"


def _numbers(text: str) -> list[float]:
    return [float(m.group(0).replace(",", "")) for m in _NUMBER.finditer(text)]


def _name(text: str) -> str:
    s, before = _SPACE.sub(" ", text).strip(), None
    while s != before:
        before = s
        s = s.strip().rstrip(".").strip(QUOTES).strip()
    s = s.casefold()
    return s[4:] if s.startswith("the ") else s


def read_answer(form: str, text) -> float | str | None:
    """The value an answer states in the given form, or None when it states none (or several)."""
    text = str(text)
    if form == "date":
        found = set(_DATE.findall(text))
        if len(found) != 1:
            return None
        (d,) = found
        try:
            dt.date.fromisoformat(d)
        except ValueError:
            return None
        return d
    if form == "name":
        s = _name(text)
        return s if s and len(s) <= 120 else None
    found = _numbers(text)
    if len(found) != 1:
        return None
    x = found[0]
    if form == "count" and x != int(x):
        return None
    return round(x, 2) if form == "money" else x


def judge(form: str, key: str, reply) -> tuple[str, bool]:
    """(parse, right): parse is ok or invalid (no single answer of the form could be read)."""
    got = None if reply is None else read_answer(form, reply)
    if got is None:
        return "invalid", False
    want = read_answer(form, key)
    if form in ("money", "number", "count"):
        return "ok", abs(got - want) < (0.005 if form == "money" else 1e-9 * max(1.0, abs(want)))
    return "ok", got == want
