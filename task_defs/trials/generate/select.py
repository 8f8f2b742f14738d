"""The select family: a request one offered tool serves (weather, email, currency, a timer, an event, ...), answered
by one exact call; or a request none serves, answered by no call, with the closest unfit tools on offer."""

from __future__ import annotations

import datetime as dt

from task_defs.trials.generate.build import Draft, Irrelevant, T, Template
from task_defs.trials.generate.pools import (
    CARRIERS,
    CITIES,
    COMPANIES,
    EVENT_TITLES,
    FIRST,
    LAST,
    RESTAURANTS,
    city_rule,
    code,
    email_of,
    fill,
    phone,
)
from task_defs.trials.generate.rng import Rng
from task_defs.trials.generate.rules import call, eq, exact, num, one_of, said
from task_defs.trials.generate.select_pools import (
    BOOKS,
    CABINS,
    COMPANY_TICKERS,
    COUNTRIES,
    CURRENCIES,
    EMAIL_TOPICS,
    FILE_KINDS,
    FLIGHT_CITIES,
    GLOBS,
    LANDMARKS,
    LANGUAGES,
    MODES,
    NONE_SELECT,
    NOTES,
    PHRASES,
    SEARCH_FOLDERS,
    SMS_TEXTS,
    TIMER_LABELS,
    TOPICS,
    UNITS,
)
from task_defs.trials.generate.words import (
    NUMBER_WORDS,
    WEEKDAYS,
    a_day,
    a_time,
    cap,
    hhmm,
    listed,
    money,
    say_date,
    say_minutes,
    say_time,
    spoken_date,
)


def s_weather(rng: Rng) -> Draft:
    city = rng.pick(CITIES)
    c = city[0][0]
    unit = rng.pick((None, None, "celsius", "fahrenheit"))
    if unit is None:
        p = rng.pick(("What's the weather like in {c} right now?", "Is it raining in {c} at the moment?",
                      "How cold is it in {c} right now?", "Check the current conditions in {c} for me.",
                      "I'm about to head out in {c}. What's it like outside there now?",
                      "Current weather for {c}, please.", "Is it sunny in {c} at the moment?",
                      "Is it windy in {c} right now?", "My sister lives in {c}. What's the weather doing there now?"))
        u = one_of(["celsius", "fahrenheit"], optional=True)
    else:
        p = rng.pick(("What's the temperature in {c} right now, in {U}?", "Current weather in {c}, in degrees {U}.",
                      "Give me the weather in {c} at the moment, using {U}.",
                      "How warm is it in {c} now? Answer in {U}, please.",
                      "{c} weather right now, temperatures in {U}."))
        u = eq(unit)
    prompt = p.format(c=c, U=(unit or "").capitalize())
    return Draft(prompt, exact(call("get_weather", city=city_rule(city), unit=u)), ("get_weather",))


def s_email(rng: Rng) -> Draft:
    first, last = rng.pick(FIRST), rng.pick(LAST)
    to = email_of(rng, first, last)
    topic = rng.pick(EMAIL_TOPICS)
    s, b = fill(rng, topic[0]), fill(rng, topic[1])
    quoted = rng.pick(('Email {to} with the subject "{s}" and the body "{b}"',
                       'Let {f} know by email ({to}). Use the subject "{s}" and exactly this body: "{b}"',
                       'Send {f} an email at {to} titled "{s}" that says "{b}"',
                       'Mail {to}, subject line "{s}", message "{b}"',
                       'Could you email {f} {l} ({to})? Subject "{s}", body "{b}".'))
    plain = rng.pick(("Please send an email to {to}. Subject: {s}. Body: {b}",
                      "New email to {to}. Subject: {s}. Text: {b}"))
    p = plain if rng.chance(0.3) else quoted
    args = {"to": eq(to, fold=True), "subject": one_of([s, s + "."], fold=True), "body": said(b)}
    return Draft(p.format(to=to, s=s, b=b, f=first, l=last), exact(call("send_email", **args)), ("send_email",))


def _amount(rng: Rng) -> float:
    v = rng.pick((rng.between(5, 99), rng.between(100, 999), rng.between(10, 900) * 10, rng.between(1000, 25000)))
    return round(v + rng.between(1, 99) / 100, 2) if rng.chance(0.25) else v


def s_currency(rng: Rng) -> Draft:
    (a, an), (b, bn) = rng.sample(CURRENCIES, 2)
    v = _amount(rng)
    amt = money(v) if rng.chance(0.5) else (f"{v:.2f}" if v != int(v) else str(int(v)))
    p = rng.pick(("How much is {v} {an} in {bn}?", "Convert {v} {a} to {b}.", "What would {v} {an} come to in {bn}?",
                  "I have {v} {an} left over from a trip. What's that in {bn}?", "Please change {v} {a} into {b}.",
                  "{v} {an} to {bn}: how much is that?", "What are {v} {an} worth in {bn} today?",
                  "Exchange {v} {a} for {b} and tell me the amount."))
    prompt = p.format(v=amt, a=a, b=b, an=an, bn=bn)
    rule = call("convert_currency", amount=num(v, 0.001), from_currency=eq(a, fold=True), to_currency=eq(b, fold=True))
    return Draft(cap(prompt), exact(rule), ("convert_currency",))


def s_timer(rng: Rng) -> Draft:
    minutes = rng.pick((rng.between(2, 59), rng.between(1, 4) * 60, rng.between(61, 150)))
    label = rng.pick(TIMER_LABELS)
    span = say_minutes(rng, minutes)
    p = rng.pick(('Start a timer for {span} called "{label}".', "Set a timer for {span} and label it '{label}'.",
                  'Timer please: {span}, name it "{label}".', 'Count down {span} for me, label "{label}".',
                  'I need a "{label}" timer set to {span}.', "Can you set a {label} timer? {Span} should do it."))
    prompt = p.format(span=span, Span=cap(span), label=label)
    rule = call("set_timer", minutes=num(minutes), label=eq(label, fold=True))
    return Draft(prompt, exact(rule), ("set_timer",), avoid=("create_event",))


def s_event(rng: Rng) -> Draft:
    title = fill(rng, rng.pick(EVENT_TITLES))
    day = a_day(rng)
    start = a_time(rng, 7, 20) if rng.chance(0.7) else None
    dur = rng.pick((None, 30, 45, 60, 90, 120, 180)) if start else None
    when = say_date(rng, day)
    at = f" at {say_time(rng, start)}" if start else ""
    span = ""
    if dur:
        if rng.chance(0.4):
            end = dt.datetime(2000, 1, 1, *start) + dt.timedelta(minutes=dur)
            at = f" from {hhmm(start)} to {end:%H:%M}"
        else:
            span = rng.pick((f", lasting {say_minutes(rng, dur)}", f" for {say_minutes(rng, dur)}"))
    p = rng.pick(("Add '{t}' to my calendar on {d}{at}{span}.", 'Put "{t}" in the calendar for {d}{at}{span}.',
                  'Schedule "{t}" on {d}{at}{span}.', 'Create a calendar event called "{t}" on {d}{at}{span}.',
                  'Calendar entry: "{t}", {d}{at}{span}.', 'Please block {d}{at}{span} in my calendar for "{t}".'))
    args = {"title": one_of([title], fold=True), "date": eq(day.isoformat())}
    if start:
        args["start"] = eq(hhmm(start))
    if dur:
        args["duration_minutes"] = num(dur)
    prompt = p.format(t=title, d=when, at=at, span=span)
    return Draft(prompt, exact(call("create_event", **args)), ("create_event",), avoid=("book_table", "create_note"))


def _folder_rule(folder: str, optional: bool = False) -> dict:
    forms = [folder, folder + ("\\" if "\\" in folder else "/")]
    if "\\" in folder:
        forms += [f.replace("\\", "/") for f in forms]
    return one_of(forms, optional=optional)


def s_files(rng: Rng) -> Draft:
    kind, ext = rng.pick(FILE_KINDS)
    folder = rng.pick(SEARCH_FOLDERS)
    glob = rng.pick(GLOBS)
    style = rng.below(4)
    if style == 0:
        p = rng.pick(("Find all the {k} files in {f}.", "Look in {f} for any {k} files.",
                      "Which {k} files are there in {f}?", "List every .{e} file under {f}."))
        args = {"pattern": one_of([f"*.{ext}", f"*.{ext.upper()}"]), "folder": _folder_rule(folder)}
    elif style == 1:
        p = rng.pick(("Search {f} for files matching {g}.", "Find files named like {g} in {f}.",
                      "In {f}, look for files whose names match {g}."))
        args = {"pattern": eq(glob), "folder": _folder_rule(folder)}
    elif style == 2:
        p = rng.pick(("Look for files matching {g}.", "Where are my files named {g}? Search everywhere.",
                      "Find any file that matches the pattern {g}, wherever it is."))
        args = {"pattern": eq(glob), "folder": one_of(["/", "~", "~/", ".", "./"], optional=True)}
    else:
        p = rng.pick(("Find all my {k} files, wherever they are.", "Search everywhere for .{e} files."))
        args = {"pattern": one_of([f"*.{ext}", f"*.{ext.upper()}"]),
                "folder": one_of(["/", "~", "~/", ".", "./"], optional=True)}
    prompt = p.format(k=kind, e=ext, f=folder, g=glob)
    return Draft(prompt, exact(call("search_files", **args)), ("search_files",))


def s_translate(rng: Rng) -> Draft:
    lang, iso = rng.pick(LANGUAGES)
    text = rng.pick(PHRASES)
    p = rng.pick(("Translate '{t}' into {L}.", 'How do you say "{t}" in {L}?', "Please put this into {L}: {t}",
                  'My client only reads {L}. Translate this line for them: "{t}"',
                  '{L} translation of "{t}", please.', 'I need "{t}" in {L}.'))
    bare = text.rstrip(".?!")
    rule = call("translate_text", text=one_of([text, bare], fold=True), target_language=eq(iso, fold=True))
    return Draft(p.format(t=text, L=lang), exact(rule), ("translate_text",))


def s_stock(rng: Rng) -> Draft:
    company, ticker = rng.pick(COMPANY_TICKERS)
    p = rng.pick(("What's {t} trading at?", "Check the latest share price of {c} (ticker {t}).",
                  "How are {c} shares doing right now? The symbol is {t}.", "Latest price for {t}, please.",
                  "Quote me {c}, ticker {t}.", "What's the current stock price of {c}? Its ticker is {t}.",
                  "Look up {t} for me: what does one share cost now?"))
    rule = call("stock_price", symbol=eq(ticker, fold=True))
    return Draft(p.format(c=company, t=ticker), exact(rule), ("stock_price",), avoid=("convert_currency",))


def s_flights(rng: Rng) -> Draft:
    o, d = rng.sample(FLIGHT_CITIES, 2)
    dep = a_day(rng)
    ret = dep + dt.timedelta(days=rng.between(2, 21)) if rng.chance(0.6) else None
    pax = rng.pick((None, None, 1, 2, 3, 4, 5, 6))
    cabin = rng.pick((None, None, *CABINS))
    iso = rng.chance(0.7)
    dd = dep.isoformat() if iso else spoken_date(rng, dep)
    rd = (ret.isoformat() if iso else spoken_date(rng, ret)) if ret else ""
    dates = rng.pick((f"leaving {dd} and returning {rd}", f"out on {dd}, back on {rd}")) if ret else \
        rng.pick((f"one way on {dd}", f"on {dd}, one way", f"departing {dd} (one-way)"))
    who = ""
    if pax:
        who = rng.pick((f" for {pax} {'adult' if pax == 1 else 'adults'}",
                        f" for {NUMBER_WORDS[pax]} {'passenger' if pax == 1 else 'passengers'}"))
    cls = f" in {cabin[1]}" if cabin else ""
    p = rng.pick(("Find flights from {o} to {d}{who}{cls}, {dates}.", "Search flights {o} to {d}, {dates}{who}{cls}.",
                  "Any flights from {o} to {d}{cls}? {Dates}{who}.",
                  "I need to fly from {o} to {d}{who}, {dates}{cls}."))
    prompt = p.format(o=o[0], d=d[0], who=who, cls=cls, dates=dates, Dates=cap(dates))
    args = {"origin": one_of(o, fold=True), "destination": one_of(d, fold=True), "depart_date": eq(dep.isoformat())}
    if ret:
        args["return_date"] = eq(ret.isoformat())
    args["passengers"] = num(pax) if pax else num(1, optional=True)
    args["cabin"] = eq(cabin[0]) if cabin else one_of(["economy"], optional=True)
    return Draft(prompt, exact(call("search_flights", **args)), ("search_flights",))


def _place_rule(place: tuple[str, ...], city: str) -> dict:
    forms = []
    for p in place:
        for q in (p, p[4:] if p.startswith("the ") else p):
            forms += [q, f"{q}, {city}"]
    return one_of(forms, fold=True)


def s_directions(rng: Rng) -> Draft:
    city, places = rng.pick(LANDMARKS)
    a, b = rng.sample(places, 2)
    mode = rng.pick((None, *MODES))
    if mode is None:
        p = rng.pick(("How do I get from {a} to {b}?", "Directions from {a} to {b} in {city}, please.",
                      "What's the route from {a} to {b}?", "I'm at {a}. How do I get to {b} from here?"))
        m = one_of([x[0] for x in MODES], optional=True)
    else:
        verb, by, adj = mode[1]
        p = rng.pick(("How do I get from {a} to {b} {by}?",
                      "I want to {verb} from {a} to {b} in {city}. Route, please.",
                      "Give me {adj} directions from {a} to {b}.", "{Adj} route from {a} to {b}, please.",
                      "What's the best way from {a} to {b} {by}?"))
        m = eq(mode[0])
    prompt = p.format(a=a[0], b=b[0], city=city, by=mode[1][1] if mode else "", verb=mode[1][0] if mode else "",
                      adj=mode[1][2] if mode else "", Adj=cap(mode[1][2]) if mode else "")
    rule = call("get_directions", origin=_place_rule(a, city), destination=_place_rule(b, city), mode=m)
    return Draft(cap(prompt), exact(rule), ("get_directions",))


def s_sms(rng: Rng) -> Draft:
    number = phone(rng)
    text = fill(rng, rng.pick(SMS_TEXTS))
    who = rng.pick(("my landlord", "the babysitter", rng.pick(FIRST), "my neighbour", "the courier", "my brother"))
    p = rng.pick(("Text {n}: {t}", 'Send an SMS to {n} saying "{t}"', "Can you text {w} at {n} with exactly: {t}",
                  'SMS {n} the message "{t}"', 'Please text "{t}" to {w} on {n}.', "Message {n} by SMS: {t}"))
    rule = call("send_sms", phone_number=eq(number), message=said(text))
    return Draft(p.format(n=number, t=text, w=who), exact(rule), ("send_sms",), avoid=("send_email",))


def s_units(rng: Rng) -> Draft:
    if rng.chance(0.15):
        a, b = rng.pick((("celsius", "fahrenheit"), ("fahrenheit", "celsius")))
        v = rng.between(-20, 40) if a == "celsius" else rng.pick((rng.between(0, 110), rng.between(30, 45) * 10))
        p = rng.pick(("What is {v} degrees {A} in {B}?", "Convert {v} °{a1} to {B}.",
                      "My recipe says {v} degrees {A}. What's that in {B}?", "{v} degrees {A} in degrees {B}, please."))
        prompt = p.format(v=v, A=a.capitalize(), B=b.capitalize(), a1=a[0].upper())
    else:
        dim = rng.pick(("length", "mass", "volume"))
        a, b = rng.sample([k for k, u in UNITS.items() if u[2] == dim], 2)
        v = rng.pick((rng.between(2, 500), rng.between(1, 99) + rng.pick((0.5, 0.25, 0.2, 0.75))))
        p = rng.pick(("How many {B} is {v} {A}?", "Convert {v} {A} to {B}.", "What's {v} {A} in {B}?",
                      "I need {v} {A} expressed in {B}.", "{v} {A} is how many {B}?"))
        prompt = p.format(v=f"{v:g}", A=UNITS[a][1], B=UNITS[b][1])
    rule = call("convert_units", value=num(v, 1e-9), from_unit=eq(a), to_unit=eq(b))
    return Draft(cap(prompt), exact(rule), ("convert_units",), avoid=("convert_currency",))


def s_track(rng: Rng) -> Draft:
    carrier, prefix, n, alphabet = rng.pick(CARRIERS)
    number = prefix + code(rng, n, alphabet) + ("GB" if carrier == "Royal Mail" else "")
    p = rng.pick(("Where's my {c} parcel? The tracking number is {n}.", "Track {c} package {n}.",
                  "Can you check the status of {c} shipment {n}?", "When will my parcel arrive? It's {c}, number {n}.",
                  "Tracking number {n} with {c}: where is it now?"))
    rule = call("track_package", carrier=eq(carrier, fold=True), tracking_number=eq(number, fold=True))
    return Draft(p.format(c=carrier, n=number), exact(rule), ("track_package",))


def s_table(rng: Rng) -> Draft:
    place = rng.pick(RESTAURANTS)
    day, t, size = a_day(rng), a_time(rng, 12, 21), rng.between(1, 10)
    who = rng.pick((f"{size}", NUMBER_WORDS[size] if size <= 12 else str(size)))
    people = f"{who} {'person' if size == 1 else 'people'}"
    p = rng.pick(("Book a table for {w} at {r} on {d} at {t}.", "Reserve a table at {r} for {w}, {d}, {t}.",
                  "Can you get us a table at {r}? We are {w}, on {d} at {t}.",
                  "Table reservation at {r}: {d}, {t}, {w}."))
    prompt = p.format(w=people, r=place, d=say_date(rng, day), t=say_time(rng, t))
    rule = call("book_table", restaurant=one_of([place, place.replace("é", "e")], fold=True), date=eq(day.isoformat()),
                time=eq(hhmm(t)), party_size=num(size))
    return Draft(prompt, exact(rule), ("book_table",), avoid=("create_event",))


def s_contact(rng: Rng) -> Draft:
    first, last = rng.pick(FIRST), rng.pick(LAST)
    name = f"{first} {last}"
    num_, mail = phone(rng), email_of(rng, first, last)
    has = rng.pick(("phone", "email", "both"))
    args = {"name": eq(name, fold=True)}
    bits = []
    if has in ("phone", "both"):
        args["phone_number"] = eq(num_)
        bits.append(f"phone {num_}")
    if has in ("email", "both"):
        args["email"] = eq(mail, fold=True)
        bits.append(f"email {mail}")
    info = listed(bits)
    p = rng.pick(("Save {n} as a new contact: {i}.", "Add {n} to my contacts with {i}.",
                  "New contact please. Name: {n}; {i}.", "Put {n} in my address book, {i}."))
    return Draft(p.format(n=name, i=info), exact(call("add_contact", **args)), ("add_contact",))


def s_local_time(rng: Rng) -> Draft:
    city = rng.pick(CITIES)
    p = rng.pick(("What time is it in {c} right now?", "Tell me the current local time in {c}.",
                  "Is it still morning in {c}? What's the time there now?", "Current time in {c}, please.",
                  "I need to call someone in {c}. What time is it there at the moment?"))
    return Draft(p.format(c=city[0][0]), exact(call("get_local_time", city=city_rule(city))), ("get_local_time",),
                 avoid=("get_weather",))


def s_note(rng: Rng) -> Draft:
    title, text = (fill(rng, x) for x in rng.pick(NOTES))
    p = rng.pick(('Make a note titled "{t}" that says: {x}', 'Save a note called "{t}" with the text "{x}"',
                  'New note. Title: "{t}". Text: "{x}"', 'Jot this down under "{t}": {x}'))
    rule = call("create_note", title=eq(title, fold=True), text=said(text))
    return Draft(p.format(t=title, x=text), exact(rule), ("create_note",), avoid=("create_event", "send_email"))


def none_select_values(rng: Rng) -> dict:
    d1 = a_day(rng)
    past = dt.date(2024, rng.between(1, 12), rng.between(1, 28))
    fc1, fc2 = rng.sample(FLIGHT_CITIES, 2)
    return {"city": rng.pick(CITIES)[0][0], "d1": say_date(rng, d1),
            "d2": say_date(rng, d1 + dt.timedelta(days=rng.between(1, 9))), "n": rng.between(2, 12),
            "past": say_date(rng, past), "book": rng.pick(BOOKS), "country": rng.pick(COUNTRIES),
            "a": rng.between(3, 99), "b": rng.between(3, 99), "p": rng.pick((5, 10, 12, 15, 20, 25, 30, 40, 75)),
            "x": rng.between(101, 9999), "topic": rng.pick(TOPICS), "first": rng.pick(FIRST), "last": rng.pick(LAST),
            "phone": phone(rng), "title": fill(rng, rng.pick(EVENT_TITLES)), "rest": rng.pick(RESTAURANTS),
            "fc1": fc1[0], "fc2": fc2[0], "room": rng.pick(("kitchen", "living room", "bedroom", "office", "hallway")),
            "t": rng.between(17, 24), "place": rng.pick(("the airport", "the central station", "the city hospital",
                                                         "the conference centre", "12 Elm Street")),
            "time": say_time(rng, a_time(rng, 5, 9)), "cur": rng.pick(CURRENCIES)[0], "day": rng.pick(WEEKDAYS),
            "bill": rng.between(30, 400), "ticker": rng.pick(COMPANY_TICKERS)[1], "folder": rng.pick(SEARCH_FOLDERS),
            "lang": rng.pick(LANGUAGES)[0], "survey": rng.pick(("parking", "canteen", "commuting", "noise")),
            "company": rng.pick(COMPANIES), "fish": rng.pick(("salmon", "sea bass", "trout"))}


def select_templates() -> list[tuple[Template, float]]:
    return [*SELECT, (Irrelevant("s_none", NONE_SELECT, none_select_values).template(), 67)]


SELECT = [(T(s_weather), 25), (T(s_email), 28), (T(s_currency), 28), (T(s_timer), 22), (T(s_event), 34),
          (T(s_files), 24), (T(s_translate), 26), (T(s_stock), 16), (T(s_flights), 30), (T(s_directions), 24),
          (T(s_sms), 24), (T(s_units), 28), (T(s_track), 15), (T(s_table), 20), (T(s_contact), 14),
          (T(s_local_time), 12), (T(s_note), 13)]
