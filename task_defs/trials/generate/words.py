"""How values are said in a prompt: capitals, amounts, lists, number words, dates, times and spans, each drawn
among the ways people write them, so the prompts vary in form as well as in values."""

from __future__ import annotations

import datetime as dt

from task_defs.trials.generate.rng import Rng


def cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def money(v: float) -> str:
    return f"{v:,.2f}" if v != int(v) else f"{int(v):,}"


def listed(items: list[str], last: str = "and") -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" {last} " + items[-1]


NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                "twelve")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def a_day(rng: Rng, years=(2025, 2026)) -> dt.date:
    return dt.date(rng.pick(years), rng.between(1, 12), rng.between(1, 28))


def spoken_date(rng: Rng, d: dt.date) -> str:
    m = MONTHS[d.month - 1]
    return rng.pick((f"{d.day} {m} {d.year}", f"{m} {d.day}, {d.year}",
                     f"{WEEKDAYS[d.weekday()]} {d.day} {m} {d.year}"))


def say_date(rng: Rng, d: dt.date, iso_share: float = 0.6) -> str:
    return d.isoformat() if rng.chance(iso_share) else spoken_date(rng, d)


def a_time(rng: Rng, lo: int = 7, hi: int = 21) -> tuple[int, int]:
    return rng.between(lo, hi), rng.pick((0, 15, 30, 45))


def hhmm(t: tuple[int, int]) -> str:
    return f"{t[0]:02d}:{t[1]:02d}"


def say_time(rng: Rng, t: tuple[int, int]) -> str:
    h, m = t
    h12, half = h % 12 or 12, "am" if h < 12 else "pm"
    return rng.pick((hhmm(t), f"{h12}:{m:02d} {half}" if m else f"{h12} {half}"))


def say_minutes(rng: Rng, minutes: int) -> str:
    h, m = divmod(minutes, 60)
    if not h:
        return f"{minutes} minutes"
    hours = f"{h} hour" + ("s" if h > 1 else "")
    if not m:
        return rng.pick((hours, f"{minutes} minutes"))
    return rng.pick((f"{hours} and {m} minutes", f"{minutes} minutes"))
