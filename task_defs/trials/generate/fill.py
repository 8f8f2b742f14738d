"""The fill family: the right tool is plain, the work is in its arguments. A request says a value the way people
say it (a span in minutes, a size in gigabytes, a day counted from a date the prompt states, a count in words, a
phone number in national form) and the tool wants it in its own unit or format; an enum is chosen from what its
description says of each option; nested objects and arrays are filled whole; and an optional argument the request
says nothing about is left out (the oracle lists no rule for it, so sending one is an unknown argument) unless its
description gives a default, which may be sent as is."""

from __future__ import annotations

import datetime as dt

from task_defs.trials.generate.build import Draft, T, Template
from task_defs.trials.generate.fill_pools import (
    ALARM_LABELS,
    COUNTRIES,
    DAY_SETS,
    MONEY,
    PHONE_COUNTRY,
    POLL_QUESTIONS,
    REMINDER_TEXTS,
    ROOMS,
    SKUS,
    a_date,
    a_phone,
    an_iban,
    count_said,
    in_words,
    relative_day,
    spoken_clock,
    today_said,
)
from task_defs.trials.generate.pools import FIRST, LAST, RESTAURANTS, email_of
from task_defs.trials.generate.rng import Rng
from task_defs.trials.generate.rules import call, eq, exact, num, one_of, said
from task_defs.trials.generate.words import cap, listed, money, spoken_date

LABELS = ("pasta", "tea", "laundry", "eggs", "plank", "nap", "bread", "focus", "rice", "stretch")


def f_countdown(rng: Rng) -> Draft:
    kind = rng.below(6)
    if kind == 0:
        m, s = rng.between(1, 9), rng.pick((10, 15, 20, 30, 40, 45))
        span, secs = f"{count_said(rng, m)} minute{'s' * (m > 1)} and {count_said(rng, s)} seconds", m * 60 + s
    elif kind == 1:
        h, m = rng.between(1, 2), rng.pick((5, 10, 15, 20, 40))
        span, secs = f"{count_said(rng, h)} hour{'s' * (h > 1)} and {m} minutes", h * 3600 + m * 60
    elif kind == 2:
        n = rng.between(1, 9)
        span, secs = f"{in_words(n)} and a half minutes", n * 60 + 30
    elif kind == 3:
        span, secs = rng.pick((("a quarter of an hour", 900), ("half an hour", 1800),
                               ("three quarters of an hour", 2700), ("an hour and a half", 5400)))
    elif kind == 4:
        m = rng.between(2, 45)
        span, secs = f"{count_said(rng, m)} minutes", m * 60
    else:
        h = rng.pick((1.5, 2.5, 0.75, 1.25))
        span, secs = f"{h} hours", int(h * 3600)
    label = rng.pick(LABELS) if rng.chance(0.5) else None
    named = rng.pick((f' and call it "{label}"', f', label "{label}"', f" named {label}")) if label else ""
    p = rng.pick(("Start a countdown of {span}{named}.", "Count down {span} for me{named}.",
                  "I need a countdown: {span}{named}.", "Set a countdown for {span}{named}, please."))
    args = {"seconds": num(secs)}
    if label:
        args["label"] = eq(label, fold=True)
    return Draft(p.format(span=span, named=named), exact(call("start_countdown", **args)), ("start_countdown",))


def f_quota(rng: Rng) -> Draft:
    user = f"{rng.pick(FIRST).lower()}.{rng.pick(LAST)[0].lower()}"
    kind = rng.below(4)
    if kind == 0:
        gb = rng.pick((1.5, 2, 2.5, 3, 4, 5, 6, 8, 10, 12, 20, 0.75))
        said_v, mb = rng.pick((f"{gb:g} GB", f"{gb:g} gigabytes")), int(gb * 1024)
    elif kind == 1:
        said_v, mb = rng.pick((("half a gigabyte", 512), ("a quarter of a gigabyte", 256), ("one gigabyte", 1024),
                               ("a gig and a half", 1536), ("two gigs", 2048)))
    elif kind == 2:
        mb = rng.pick((300, 500, 750, 900, 1200, 1500))
        said_v = rng.pick((f"{mb} MB", f"{mb} megabytes"))
    else:
        gb = rng.between(2, 16)
        said_v, mb = f"{in_words(gb)} gigabytes", gb * 1024
    p = rng.pick(('Set the storage limit for user "{u}" to {v}.', "Give {u} a file-server quota of {v}.",
                  "The user {u} needs more room on the file server: make their limit {v}.",
                  "Change the quota of account {u} to {v}."))
    rule = call("set_storage_quota", username=eq(user), limit_mb=num(mb))
    return Draft(cap(p.format(u=user, v=said_v)), exact(rule), ("set_storage_quota",))


def f_workout(rng: Rng) -> Draft:
    # distances and paces a person could do: (sport, verb, tenths of a km, seconds per km)
    sport, verb, tenths, pace = rng.pick((("run", "ran", (30, 250), (290, 420)), ("ride", "cycled", (100, 900),
                                         (110, 190)), ("swim", "swam", (5, 40), (1200, 1800)),
                                         ("walk", "walked", (20, 150), (600, 780))))
    km = rng.between(*tenths) / 10
    dist = rng.pick((f"{km:g} km", f"{km:g} kilometres"))
    total = round(km * rng.between(*pace) / 5) * 5
    mins, s = divmod(total, 60)
    h, m = divmod(mins, 60)
    if h and rng.chance(0.5):
        dur = f"{h}:{m:02d}:{s:02d}"
    else:
        dur = f"{mins} minutes" + (f" {s} seconds" if s else "")
    today = a_date(rng)
    when = rng.below(3)
    args = {"sport": eq(sport), "distance_m": num(round(km * 1000)), "duration_s": num(mins * 60 + s)}
    if when == 0:
        intro = rng.pick(("Today I", "This morning I", "Just now I"))
    elif when == 1:
        intro = f"{today_said(rng, today)} Yesterday I"
        args["date"] = eq((today - dt.timedelta(days=1)).isoformat())
    else:
        day = today - dt.timedelta(days=rng.between(2, 6))
        intro = f"On {spoken_date(rng, day)} I"
        args["date"] = eq(day.isoformat())
    p = rng.pick(("{i} {v} {d} in {t}. Log it.", "{i} {v} {d}, which took {t}. Please record the workout.",
                  "Add this to my training log: {i} {v} {d} in {t}."))
    return Draft(p.format(i=intro, v=verb, d=dist, t=dur), exact(call("log_workout", **args)), ("log_workout",))


def f_thermostat(rng: Rng) -> Draft:
    room = rng.pick(ROOMS)
    kind = rng.below(3)
    if kind == 0:
        f = rng.between(60, 78)
        want, say = (f - 32) * 5 / 9, rng.pick((f"{f}°F", f"{f} degrees Fahrenheit", f"{f} F"))
        p = rng.pick(("Set the {r} thermostat to {s}.", "Make the {r} {s}, please.", "{R} heating to {s}."))
    elif kind == 1:
        now, d = rng.between(17, 22) + rng.pick((0, 0.5)), rng.pick((1, 1.5, 2, 3))
        up = rng.chance(0.6)
        want = now + d if up else now - d
        say, deg = f"{now:g}", f"{d:g} degree" + "s" * (d != 1)
        p = rng.pick((f"The {{r}} is set to {{s}} °C. Turn it {'up' if up else 'down'} by {deg}.",
                      f"{{R}} thermostat says {{s}} degrees Celsius; make it {deg} {'warmer' if up else 'cooler'}."))
    else:
        c = rng.between(16, 24)
        want, say = c, in_words(c)
        p = rng.pick(("Put the {r} at {s} degrees Celsius.", "I'd like the {r} at {s} degrees C."))
    # only a Fahrenheit value needs rounding room (70 °F is 21.11 °C; 21 or 21.1 are right too)
    rule = call("set_thermostat", room=one_of(room, fold=True), celsius=num(round(want, 2), 0.5 if kind == 0 else 0.01))
    return Draft(p.format(r=room[0], R=cap(room[0]), s=say), exact(rule), ("set_thermostat",))


def f_reminder(rng: Rng) -> Draft:
    today = a_date(rng)
    words, day, from_today = relative_day(rng, today)
    text = rng.pick(REMINDER_TEXTS)
    args = {"text": said(text), "date": eq(day.isoformat())}
    at = ""
    if rng.chance(0.5):
        clock, hm = spoken_clock(rng)
        at, args["time"] = f" at {clock}", eq(hm)
    stated = today_said(rng, today) + " " if from_today else ""
    p = rng.pick(('{st}Remind me {w}{at}: "{t}".', '{st}Set a reminder "{t}" for {wf}{at}.',
                  '{st}I need a reminder {w}{at} that says "{t}".'))
    prompt = p.format(st=stated, w=words, wf=words.removeprefix("on "), at=at, t=text)
    return Draft(prompt, exact(call("create_reminder", **args)), ("create_reminder",))


def f_ship(rng: Rng) -> Draft:
    order = f"SO-{rng.between(10000, 99999)}"
    need, service = rng.pick((("the cheapest way you can", "economy"), ("as cheaply as possible", "economy"),
                              ("whichever option costs least; there's no hurry", "economy"),
                              ("so it arrives on the next working day", "overnight"),
                              ("with the fastest service there is", "overnight"),
                              ("so it arrives within two working days, at the lowest price that does it", "express"),
                              ("so it gets there in three or four working days", "standard"),
                              ("in three to four working days, not faster", "standard")))
    ins = rng.below(3)
    extra = (" Insure it, please.", " Add insurance.", "")[ins]
    args = {"order_id": eq(order), "service": eq(service), "insured": eq(True) if ins < 2 else eq(False, optional=True)}
    p = rng.pick(("Ship order {o} {n}.{x}", "Please send out {o} {n}.{x}", "Order {o} is packed: ship it {n}.{x}"))
    return Draft(p.format(o=order, n=need, x=extra), exact(call("ship_parcel", **args)), ("ship_parcel",))


def f_room(rng: Rng) -> Draft:
    people = rng.between(2, 40)
    size = "small" if people <= 4 else "medium" if people <= 8 else "large" if people <= 16 else "hall"
    who = rng.pick((f"me and {count_said(rng, people - 1)} colleague{'s' * (people > 2)}",
                    f"a group of {count_said(rng, people)}" if people > 2 else "me and a colleague",
                    f"{count_said(rng, people)} people", f"the {count_said(rng, people)} of us"))
    today = a_date(rng)
    words, day, from_today = relative_day(rng, today)
    clock, start = spoken_clock(rng, 8, 16)
    dur, span = rng.pick(((30, "half an hour"), (45, "45 minutes"), (60, "an hour"), (90, "an hour and a half"),
                          (120, "two hours"), (150, "two and a half hours"), (180, "three hours")))
    stated = today_said(rng, today) + " " if from_today else ""
    p = rng.pick(("{st}Book a meeting room for {who} {w}, starting at {c}, for {s}.",
                  "{st}We need a room {w} at {c} for {s}: {who}.",
                  "{st}Reserve a room for {who}, {w}; it starts at {c} and lasts {s}."))
    args = {"date": eq(day.isoformat()), "start": eq(start), "duration_minutes": num(dur), "size": eq(size)}
    return Draft(p.format(st=stated, who=who, w=words, c=clock, s=span), exact(call("book_room", **args)),
                 ("book_room",))


def f_order(rng: Rng) -> Draft:
    first, last = rng.pick(FIRST), rng.pick(LAST)
    mail = email_of(rng, first, last)
    lines = []
    for sku in rng.sample(SKUS, rng.between(1, 3)):
        n, say = rng.pick(((1, "one"), (2, "two"), (2, "a pair of"), (3, "three"), (4, "four"), (5, "5"), (6, "six"),
                           (10, "ten"), (12, "a dozen"), (24, "two dozen"), (3, "3")))
        lines.append((sku, n, f"{say} {sku}"))
    wrap = rng.below(3)
    extra = (" Gift-wrap it.", " Please gift wrap the lot.", "")[wrap]
    p = rng.pick(("Place an order for {name} ({mail}): {items}.{x}", "New order, customer {name}, email {mail}. "
                  "Items: {items}.{x}", "Order {items} for {name}; their email is {mail}.{x}"))
    args = {"customer": eq({"name": f"{first} {last}", "email": mail}),
            "items": eq([{"sku": s, "quantity": n} for s, n, _ in lines]),
            "gift_wrap": eq(True) if wrap < 2 else eq(False, optional=True)}
    prompt = p.format(name=f"{first} {last}", mail=mail, items=listed([x for _, _, x in lines]), x=extra)
    return Draft(prompt, exact(call("place_order", **args)), ("place_order",))


def f_contact(rng: Rng) -> Draft:
    first, last = rng.pick(FIRST), rng.pick(LAST)
    where, national, e164 = a_phone(rng)
    args = {"name": eq(f"{first} {last}", fold=True), "phone": eq(e164)}
    bits = [rng.pick((f"{where} mobile {national}", f"number {national} ({where})"))]
    if rng.chance(0.4):
        mail = email_of(rng, first, last)
        bits.append(f"email {mail}")
        args["email"] = eq(mail, fold=True)
    if rng.chance(0.5):
        born = dt.date(rng.between(1950, 2005), rng.between(1, 12), rng.between(1, 28))
        bits.append(f"born {spoken_date(rng, born)}")
        args["birthday"] = eq(born.isoformat())
    if rng.chance(0.5):
        country, iso = rng.pick(COUNTRIES)
        bits.append(f"lives in {country}")
        args["country"] = eq(iso)
    else:  # where the contact lives is unsaid: the phone's country is a fair guess, any other is made up
        args["country"] = eq(PHONE_COUNTRY[where], optional=True)
    lead = rng.pick(("Save {n} as a contact: {b}.", "Add a contact for {n}, {b}.", "New contact {n}. Details: {b}."))
    prompt = lead.format(n=f"{first} {last}", b=listed(bits))
    return Draft(prompt, exact(call("save_contact", **args)), ("save_contact",))


def f_table(rng: Rng) -> Draft:
    place = rng.pick(RESTAURANTS)
    today = a_date(rng)
    words, day, from_today = relative_day(rng, today)
    clock, hm = spoken_clock(rng, 18, 21)
    adults, kids = rng.between(2, 6), rng.pick((0, 0, 1, 2, 3))
    party = rng.pick((f"{in_words(adults)} adults and {in_words(kids)} child{'ren' * (kids > 1)}",
                      f"the {count_said(rng, adults)} of us plus {in_words(kids)} kid{'s' * (kids > 1)}")) \
        if kids else rng.pick((f"{in_words(adults)} people", f"a party of {count_said(rng, adults)}"))
    args = {"restaurant": one_of([place], fold=True), "date": eq(day.isoformat()), "time": eq(hm),
            "party_size": num(adults + kids)}
    note = rng.pick(("a high chair, please", "window seat if possible", "one guest uses a wheelchair",
                     "it's a birthday", "nut allergy at the table")) if rng.chance(0.4) else None
    tail = f' Add the note "{note}".' if note else ""
    if note:
        args["notes"] = said(note)
    stated = today_said(rng, today) + " " if from_today else ""
    p = rng.pick(("{st}Book a table at {r} for {who} {w} at {c}.{x}",
                  "{st}Reserve {r} {w}, {c}, for {who}.{x}", "{st}Table for {who} at {r}, {w} at {c}.{x}"))
    return Draft(p.format(st=stated, r=place, who=party, w=words, c=clock, x=tail),
                 exact(call("reserve_table", **args)), ("reserve_table",))


def f_poll(rng: Rng) -> Draft:
    question, options = rng.pick(POLL_QUESTIONS)
    opts = list(options) if rng.chance(0.4) else rng.sample(options, rng.between(2, len(options)))
    args = {"question": said(question), "options": eq(opts)}
    close = ""
    if rng.chance(0.5):
        today = a_date(rng)
        words, day, from_today = relative_day(rng, today)
        close = (f" {today_said(rng, today)}" if from_today else "") + f" Close the poll {words}."
        args["closes_on"] = eq(day.isoformat())
    p = rng.pick(('Start a poll: "{q}" The choices, in this order: {o}.{c}',
                  'Create a poll asking "{q}" with the options {o}, in that order.{c}'))
    return Draft(p.format(q=question, o=listed(opts), c=close), exact(call("create_poll", **args)), ("create_poll",))


def f_payment(rng: Rng) -> Draft:
    grouped, iban = an_iban(rng)
    code, words, symbol = rng.pick(MONEY)
    kind = rng.below(4)
    if kind == 0:
        v = rng.between(20, 4000) + (rng.pick((0, 0, 0.5, 0.25, 0.99)) if code != "JPY" else 0)  # no sen
        amount = f"{symbol}{money(v)}" if symbol else f"{money(v)} {words}"
    elif kind == 1:
        v = rng.between(11, 19) * 100
        amount = f"{in_words(v // 100)} hundred {words}"
    elif kind == 2:
        v = rng.between(11, 95) * 100
        amount = f"{v / 1000:g}k {words}"
    else:
        v = rng.between(2, 9) * 100 + rng.pick((0, 50))
        amount = f"{in_words(v)} {words}"
    ref = rng.pick((f"Invoice {rng.between(1000, 9999)}", "Rent", "Deposit", f"Order {rng.between(100, 999)}")) \
        if rng.chance(0.5) else None
    args = {"iban": eq(iban), "amount": num(v, 0.001), "currency": eq(code)}
    tail = ""
    if ref:
        args["reference"] = eq(ref, fold=True)
        tail = rng.pick((f' with the reference "{ref}"', f', reference "{ref}"'))
    p = rng.pick(("Pay {a} to {i}{t}.", "Transfer {a} to the account {i}{t}.", "Send {a} to IBAN {i}{t}."))
    iban_said = grouped if rng.chance(0.7) else grouped.lower()
    return Draft(p.format(a=amount, i=iban_said, t=tail), exact(call("send_payment", **args)), ("send_payment",))


def f_alarm(rng: Rng) -> Draft:
    clock, hm = spoken_clock(rng, 5, 9)
    said_days, days = rng.pick(DAY_SETS)
    label = rng.pick(ALARM_LABELS) if rng.chance(0.5) else None
    args = {"time": eq(hm), "days": eq(list(days))}
    tail = ""
    if label:
        args["label"] = eq(label, fold=True)
        tail = rng.pick((f', labelled "{label}"', f' called "{label}"'))
    p = rng.pick(("Wake me at {c} {d}{t}.", "Set an alarm for {c} {d}{t}.", "I want an alarm {d} at {c}{t}."))
    return Draft(p.format(c=clock, d=said_days, t=tail), exact(call("set_alarm", **args)), ("set_alarm",))


FILL: list[tuple[Template, float]] = [
    (T(f), 1) for f in (f_countdown, f_quota, f_workout, f_thermostat, f_reminder, f_ship, f_room, f_order,
                        f_contact, f_table, f_poll, f_payment, f_alarm)]


def fill_templates() -> list[tuple[Template, float]]:
    return FILL
