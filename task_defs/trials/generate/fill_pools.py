"""What the fill family's requests are made of, and how values are said so that filling an argument takes work:
numbers in words, clock times in speech, dates relative to a day the prompt states, phone numbers in national form,
IBANs in groups of four. Each helper returns the words a prompt uses and the value a right argument holds."""

from __future__ import annotations

import datetime as dt

from task_defs.trials.generate.rng import Rng
from task_defs.trials.generate.words import MONTHS, WEEKDAYS, spoken_date

_ONES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
         "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen")
_TENS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")


def in_words(n: int) -> str:
    """0-999 in English words (a hyphen between tens and ones, "and" after the hundreds)."""
    if n < 20:
        return _ONES[n]
    if n < 100:
        return _TENS[n // 10] + ("-" + _ONES[n % 10] if n % 10 else "")
    rest = n % 100
    return f"{_ONES[n // 100]} hundred" + (f" and {in_words(rest)}" if rest else "")


def count_said(rng: Rng, n: int, words_share: float = 0.5) -> str:
    return in_words(n) if rng.chance(words_share) else str(n)


def _period(h: int) -> str:
    return "in the morning" if h < 12 else "in the afternoon" if h < 18 else "in the evening"


def spoken_clock(rng: Rng, lo: int = 7, hi: int = 21) -> tuple[str, str]:
    """(how the time is said, HH:MM): never the 24-hour form itself, so the argument is always normalised."""
    h, m = rng.between(lo, hi), rng.pick((0, 0, 15, 30, 45, 10, 50))
    h12 = h % 12 or 12
    said_h = in_words(h12) if rng.chance(0.5) else str(h12)
    if h == 12 and m == 0 and rng.chance(0.5):
        return rng.pick(("noon", "midday", "12 noon")), "12:00"
    if m == 30 and rng.chance(0.7):
        said = f"half past {said_h} {_period(h)}"
    elif m == 15 and rng.chance(0.7):
        said = f"a quarter past {said_h} {_period(h)}"
    elif m == 45 and rng.chance(0.7):
        n12 = (h + 1) % 12 or 12
        said = f"a quarter to {in_words(n12)} {_period(h)}"
    elif m == 0 and rng.chance(0.5):
        said = f"{said_h} o'clock {_period(h)}"
    else:
        said = f"{h12}:{m:02d} {'am' if h < 12 else 'pm'}" if m else f"{h12} {'am' if h < 12 else 'pm'}"
    return said, f"{h:02d}:{m:02d}"


def a_date(rng: Rng) -> dt.date:
    """Any day of 2025-2027, often near a month's end, so an offset often crosses into the next month or year."""
    year, month = rng.pick((2025, 2026, 2026, 2027)), rng.between(1, 12)
    last = ((dt.date(year + month // 12, month % 12 + 1, 1)) - dt.timedelta(days=1)).day
    day = rng.between(last - 6, last) if rng.chance(0.5) else rng.between(1, last)
    return dt.date(year, month, day)


def today_said(rng: Rng, d: dt.date) -> str:
    """The sentence that states the day the request counts from."""
    day = rng.pick((d.isoformat(), spoken_date(rng, d)))
    named = f"{WEEKDAYS[d.weekday()]}, {day}" if not day.startswith(WEEKDAYS) else day
    return rng.pick((f"Today is {named}.", f"For reference, today's date is {day}.", f"(It's {named} today.)"))


def relative_day(rng: Rng, today: dt.date) -> tuple[str, dt.date, bool]:
    """(how the day is said, the day, whether the words count from today): offsets from today or from a day the
    words name themselves."""
    kind = rng.below(9)
    if kind == 0:
        n = rng.between(2, 12)
        return f"in {count_said(rng, n)} days", today + dt.timedelta(days=n), True
    if kind == 1:
        return "the day after tomorrow", today + dt.timedelta(days=2), True
    if kind == 2:
        n, w = rng.pick(((7, "a week"), (14, "two weeks"), (14, "a fortnight"), (21, "three weeks")))
        return f"{w} from today", today + dt.timedelta(days=n), True
    if kind == 3:
        target = rng.pick([w for w in range(7) if w != today.weekday()])
        ahead = (target - today.weekday()) % 7
        return f"this coming {WEEKDAYS[target]}", today + dt.timedelta(days=ahead), True
    if kind == 4:
        nxt = dt.date(today.year + today.month // 12, today.month % 12 + 1, 1)
        return "on the last day of this month", nxt - dt.timedelta(days=1), True
    if kind == 5:
        return "tomorrow", today + dt.timedelta(days=1), True
    anchor = a_date(rng)
    said = anchor.isoformat() if rng.chance(0.5) else f"{MONTHS[anchor.month - 1]} {anchor.day}, {anchor.year}"
    if kind == 6:
        n = rng.between(2, 10)
        return f"{count_said(rng, n)} days after {said}", anchor + dt.timedelta(days=n), False
    if kind == 7:
        n = rng.between(2, 9)
        return f"{count_said(rng, n)} days before {said}", anchor - dt.timedelta(days=n), False
    return f"the day before {said}", anchor - dt.timedelta(days=1), False


# (country as a prompt says it, how a number is written there, country calling code): national forms with the
# trunk 0 that E.164 drops; the 555-01xx and 07700 900xxx ranges are reserved for fiction
PHONES = (
    ("UK", "07700 900{d3}", "+447700900{d3}"),
    ("US", "(415) 555-01{d2}", "+1415555 01{d2}"),
    ("US", "212-555-01{d2}", "+1212555 01{d2}"),
    ("German", "0151 {d4} {d4b}", "+49151{d4}{d4b}"),
    ("French", "06 {d2} {d2b} {d2c} {d2d}", "+336{d2}{d2b}{d2c}{d2d}"),
    ("Dutch", "06-{d4}{d4b}", "+316{d4}{d4b}"),
    ("Australian", "0412 {d3} {d3b}", "+61412{d3}{d3b}"),
    ("Irish", "085 {d3} {d4}", "+35385{d3}{d4}"),
)
PHONE_COUNTRY = {"UK": "GB", "US": "US", "German": "DE", "French": "FR", "Dutch": "NL", "Australian": "AU",
                 "Irish": "IE"}
COUNTRIES = (("Germany", "DE"), ("France", "FR"), ("Spain", "ES"), ("Italy", "IT"), ("the Netherlands", "NL"),
             ("Portugal", "PT"), ("Ireland", "IE"), ("Sweden", "SE"), ("Norway", "NO"), ("Japan", "JP"),
             ("Canada", "CA"), ("Mexico", "MX"), ("Brazil", "BR"), ("Kenya", "KE"), ("New Zealand", "NZ"),
             ("Switzerland", "CH"), ("Austria", "AT"), ("Poland", "PL"), ("Greece", "GR"), ("South Korea", "KR"))


def a_phone(rng: Rng) -> tuple[str, str, str]:
    """(country adjective, national form, E.164)."""
    where, national, e164 = rng.pick(PHONES)
    d = {k: "".join(str(rng.below(10)) for _ in range(n)) for k, n in (
        ("d2", 2), ("d2b", 2), ("d2c", 2), ("d2d", 2), ("d3", 3), ("d3b", 3), ("d4", 4), ("d4b", 4))}
    return where, national.format(**d), e164.format(**d).replace(" ", "")


def _iban_check(country: str, bban: str) -> str:
    """The two check digits of ISO 13616 (mod 97-10), so every IBAN a prompt shows is well formed."""
    digits = "".join(str(int(c, 36)) for c in bban + country + "00")
    return f"{98 - int(digits) % 97:02d}"


def an_iban(rng: Rng) -> tuple[str, str]:
    """(the IBAN grouped in fours as people write it, the IBAN without spaces)."""
    country, bank_letters, n = rng.pick((("DE", 0, 18), ("NL", 4, 10), ("GB", 4, 14), ("FR", 0, 23), ("ES", 0, 20),
                                         ("IE", 4, 14), ("BE", 0, 12), ("AT", 0, 16)))
    bban = "".join(rng.pick("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(bank_letters))
    bban += "".join(str(rng.below(10)) for _ in range(n))
    iban = country + _iban_check(country, bban) + bban
    return " ".join(iban[i:i + 4] for i in range(0, len(iban), 4)), iban


# how people name the currencies the payment tool takes as ISO 4217 codes: (code, words, symbol or None)
MONEY = (("EUR", "euros", "€"), ("GBP", "pounds sterling", "£"), ("USD", "US dollars", "$"),
         ("CHF", "Swiss francs", None), ("SEK", "Swedish kronor", None), ("JPY", "yen", "¥"),
         ("NOK", "Norwegian kroner", None), ("CAD", "Canadian dollars", None))
REMINDER_TEXTS = ("Call the plumber", "Renew the car insurance", "Pay the electricity bill", "Water the tomatoes",
                  "Pick up the dry cleaning", "Send Marta the slides", "Book the dentist", "Return the library books",
                  "Submit the expense report", "Buy a birthday card for Omar", "Cancel the free trial",
                  "Take the bins out", "Back up the laptop", "Order more printer ink", "Check the tyre pressure",
                  "Move the car for street cleaning", "Email the landlord about the boiler", "Defrost the freezer",
                  "Update the passport photo", "Confirm the hotel booking", "Feed the neighbour's cat",
                  "Collect the parcel from the post office", "Charge the camera batteries", "Pay the school trip fee")
POLL_QUESTIONS = (
    ("Where should we hold the team lunch?", ("the canteen", "Mezze House", "Casa Lola", "the park")),
    ("Which day suits the retro best?", ("Tuesday", "Wednesday", "Thursday", "Friday")),
    ("What should the book club read next?", ("Dune", "Middlemarch", "Piranesi", "Beloved")),
    ("Which colour for the new logo?", ("teal", "orange", "charcoal", "violet")),
    ("When should the offsite start?", ("9:00", "9:30", "10:00")),
    ("Pizza toppings for Friday?", ("margherita", "mushroom", "pepperoni", "four cheese", "veggie")),
    ("Which film for movie night?", ("Arrival", "Amélie", "Spirited Away", "Paddington 2")),
    ("Where to for the summer outing?", ("the lake", "the zoo", "the climbing hall")),
    ("Which editor should the team standardise on?", ("VS Code", "Vim", "Emacs", "Helix")),
    ("Best time for the weekly sync?", ("Monday 10:00", "Tuesday 14:00", "Thursday 11:00")),
)
ROOMS = (("living room", "living_room", "lounge"), ("bedroom",), ("kitchen",), ("office", "study"), ("nursery",),
         ("bathroom",), ("hallway", "hall"), ("guest room", "guest_room", "guest bedroom"), ("attic",))
SKUS = ("BX-4410", "KT-2093", "LM-7781", "QP-1150", "ZR-3306", "HC-5012", "MN-8427", "TW-6640", "CB-2219",
        "FG-9034", "DL-4478", "RY-1602", "PS-7315", "VA-5529")
DAY_SETS = (  # how a set of days is said, and the days in week order as the alarm tool takes them
    ("on weekdays", ("mon", "tue", "wed", "thu", "fri")), ("every weekday", ("mon", "tue", "wed", "thu", "fri")),
    ("at weekends", ("sat", "sun")), ("on Saturdays and Sundays", ("sat", "sun")),
    ("every day", ("mon", "tue", "wed", "thu", "fri", "sat", "sun")),
    ("on Mondays, Wednesdays and Fridays", ("mon", "wed", "fri")), ("on Tuesdays and Thursdays", ("tue", "thu")),
    ("every day except Sunday", ("mon", "tue", "wed", "thu", "fri", "sat")),
    ("Monday to Thursday", ("mon", "tue", "wed", "thu")), ("on Fridays and Mondays", ("mon", "fri")),
    ("every day but the weekend", ("mon", "tue", "wed", "thu", "fri")), ("on Sundays only", ("sun",)),
    ("on Wednesdays and Saturdays", ("wed", "sat")), ("Thursday through Sunday", ("thu", "fri", "sat", "sun")))
ALARM_LABELS = ("gym", "school run", "medication", "standup", "walk the dog", "swim training", "early shift",
                "yoga", "bins", "piano practice")
