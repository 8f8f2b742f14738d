"""The extract family: a short document (an order, a log line, a boarding pass, an address, ...) to be answered as
a JSON object with given fields, each value checked against what the text says. This module holds the
documents about people, places and machines (a signature, a meeting note, a log line, an address, a hotel
guest, a support ticket, ...) with the names they use, and EXTRACT, every template of the family in the order
the generator draws them; the documents about buying and paying are in extract_purchases.py."""

from __future__ import annotations

import datetime as dt
import re

from task_defs.trials.generate.build import Draft, T
from task_defs.trials.generate.extract_fields import NUM, STR, F, enum_f, json_draft, str_array
from task_defs.trials.generate.extract_purchases import (
    x_flight,
    x_invoice,
    x_order,
    x_shipping,
    x_spec,
    x_ticket,
    x_transfer,
)
from task_defs.trials.generate.pools import CITIES, COMPANIES, FIRST, LAST, code, digits, email_of, phone
from task_defs.trials.generate.rng import Rng
from task_defs.trials.generate.rules import eq, num, one_of
from task_defs.trials.generate.words import MONTHS, WEEKDAYS, a_day, a_time, hhmm, listed, spoken_date


def full_name(rng: Rng) -> str:
    return f"{rng.pick(FIRST)} {rng.pick(LAST)}"


ACCENTED = (("Tomás Ortega", "Tomas Ortega"), ("Zoë Martin", "Zoe Martin"), ("Jürgen Hoffmann", "Jurgen Hoffmann",
            "Juergen Hoffmann"), ("Inês Rocha", "Ines Rocha"), ("Søren Dahl", "Soren Dahl"),
            ("Renée Laurent", "Renee Laurent"), ("Łukasz Nowak", "Lukasz Nowak"), ("Ana Muñoz", "Ana Munoz"))


def a_person(rng: Rng) -> tuple[str, ...]:
    return rng.pick(ACCENTED) if rng.chance(0.3) else (full_name(rng),)


def pretty_phone(number: str) -> str:
    cc = re.match(r"\+(1|3\d\d|4\d|3\d|6\d|8\d)", number).group(0)
    rest = number[len(cc):]
    return cc + " " + " ".join(rest[i:i + 3] for i in range(0, len(rest), 3))


TITLES = ("Head of Procurement", "Senior Data Engineer", "Office Manager", "Product Designer", "Sales Director",
          "Research Fellow", "Operations Lead", "Chief Financial Officer", "Customer Success Manager")


def x_signature(rng: Rng) -> Draft:
    person = a_person(rng)
    first, last = person[-1].split(" ", 1)
    mail = email_of(rng, first, last.replace(" ", ""))
    title, company, number = rng.pick(TITLES), rng.pick(COMPANIES), phone(rng)
    nice = pretty_phone(number)
    text = rng.pick((f"Best regards,\n{person[0]} | {title} | {company}\n{mail} | {nice}",
                     f"--\n{person[0]}\n{title}, {company}\nMobile: {nice}\nEmail: {mail}",
                     f"Kind regards, {person[0]} ({title} at {company}). Reach me at {mail} or on {nice}."))
    fields = [F("name", "string", person[0], one_of(person, fold=True)), F("title", "string", title),
              F("company", "string", company), F("email", "string", mail)]
    if rng.chance(0.5):
        fields.append(F("phone", "string", nice, one_of([nice, number])))
    return json_draft(rng, "email signature", text, fields)


def x_meeting(rng: Rng) -> Draft:
    person = a_person(rng)
    day, t = a_day(rng, (2024, 2025)), a_time(rng, 9, 17)
    ver = f"{rng.between(1, 9)}.{rng.between(0, 20)}.{rng.between(0, 9)}"
    text = (f"Met with {person[0]} on {spoken_date(rng, day)}. We agreed to ship v{ver} by the end of "
            f"{rng.pick(MONTHS)}; next check-in {rng.pick(WEEKDAYS)} at {hhmm(t)}.")
    fields = [F("person", "string", person[0], one_of(person, fold=True), "string (full name of who we met)"),
              F("date", "date", day.isoformat()),
              F("version", "string", ver, eq(ver), "string (the release version, without a leading v)")]
    if rng.chance(0.4):
        fields.append(F("next_checkin_time", "time", hhmm(t)))
    return json_draft(rng, "meeting note", text, fields)


def x_sensor(rng: Rng) -> Draft:
    sid = f"{rng.pick(('greenhouse', 'cellar', 'attic', 'barn', 'lab', 'garage', 'hive'))}-{rng.between(1, 12)}"
    temp = rng.between(-150, 380) / 10
    hum, low = rng.between(15, 95), rng.chance(0.5)
    form = rng.below(3)
    if form == 0:
        text = f"sensor={sid} temp={temp:.1f}C humidity={hum}% battery={'low' if low else 'ok'} ts={digits(rng, 10)}"
    elif form == 1:
        text = f"[{sid}] {temp:.1f} °C, {hum} % RH, battery {'LOW' if low else 'OK'}"
    else:
        text = (f"Reading from {sid}: temperature {temp:.1f} degrees C, relative humidity {hum} percent, battery "
                f"{'low, replace soon' if low else 'fine'}.")
    fields = [F("sensor", "string", sid, eq(sid, fold=True)), F("temperature_c", "number", temp, num(temp, 0.01)),
              F("humidity_percent", "integer", hum), F("battery_low", "boolean", low)]
    return json_draft(rng, "sensor report", text, fields)


SERVICES = ("payment-svc", "auth-api", "search-worker", "mailer", "billing-cron", "image-resizer", "gateway")


def x_log(rng: Rng) -> Draft:
    level = rng.pick(("ERROR", "WARN", "INFO"))
    svc, ms, rid = rng.pick(SERVICES), rng.between(12, 30000), code(rng, 6, "0123456789abcdef")
    d, t = a_day(rng, (2024, 2025)), a_time(rng, 0, 23)
    ts = f"{d.isoformat()}T{hhmm(t)}:{rng.between(10, 59)}Z"
    status = rng.pick((200, 201, 404, 429, 500, 502, 503))
    if rng.chance(0.5):
        what = rng.pick(("timeout calling upstream", "slow response from database", "retrying request"))
        text = f"{ts} {level} [{svc}] {what} after {ms} ms (request_id={rid})"
        fields = []
    else:
        text = f"ts={ts} level={level.lower()} service={svc} status={status} duration_ms={ms} request_id={rid}"
        fields = [F("status", "integer", status)]
    fields = [F("level", "string", level, eq(level, fold=True), "string (as written in the line)"),
              F("service", "string", svc, eq(svc)), F("duration_ms", "integer", ms),
              F("request_id", "string", rid, eq(rid)), *fields]
    return json_draft(rng, "log line", text, fields)


DRUGS = ("amoxicillin", "ibuprofen", "paracetamol", "cetirizine", "omeprazole", "metformin", "prednisolone",
         "azithromycin", "naproxen", "doxycycline")


def x_prescription(rng: Rng) -> Draft:
    drug = rng.pick(DRUGS)
    dose, times, days = rng.pick((100, 200, 250, 400, 500, 850, 1000)), rng.between(1, 4), rng.between(3, 14)
    said_times = ("once", "twice", "three times", "four times")[times - 1]
    text = rng.pick((f"Take {drug} {dose} mg {said_times} a day for {days} days, with food.",
                     f"Rx: {drug.capitalize()} {dose} mg. Dosage: {said_times} daily. Duration: {days} days.",
                     f"Dr. {rng.pick(LAST)} prescribed {dose} mg of {drug}, to be taken {said_times} a day over "
                     f"{days} days."))
    fields = [F("drug", "string", drug), F("dose_mg", "integer", dose), F("times_per_day", "integer", times),
              F("days", "integer", days)]
    return json_draft(rng, "prescription", text, fields)


ADDRESSES = (  # country, streets and cities (other spellings after the first), postcode format
    ("Germany", (("Hauptstraße", "Hauptstrasse"), ("Lindenallee",), ("Bergstraße", "Bergstrasse"), ("Gartenweg",)),
     (("München", "Munich", "Muenchen"), ("Köln", "Cologne", "Koeln"), ("Leipzig",), ("Hamburg",)), "de"),
    ("Netherlands", (("Keizersgracht",), ("Damrak",), ("Oudegracht",), ("Lange Voorhout",)),
     (("Amsterdam",), ("Utrecht",), ("Den Haag", "The Hague"), ("Leiden",)), "nl"),
    ("Spain", (("Calle Mayor",), ("Calle del Prado",), ("Avenida de la Paz",)),
     (("Madrid",), ("Valencia",), ("Sevilla", "Seville"), ("Zaragoza",)), "es"),
    ("Austria", (("Mariahilfer Straße", "Mariahilfer Strasse"), ("Herrengasse",), ("Landstraße", "Landstrasse")),
     (("Wien", "Vienna"), ("Graz",), ("Linz",)), "at"),
)


def x_address(rng: Rng) -> Draft:
    country, streets, cities, kind = rng.pick(ADDRESSES)
    street, city = rng.pick(streets), rng.pick(cities)
    house = str(rng.between(1, 240))
    postcode = {"de": digits(rng, 5), "nl": f"{digits(rng, 4)} {code(rng, 2, 'ABCDEGHJKLMNPRST')}",
                "es": f"{rng.between(10, 50)}{digits(rng, 3)}", "at": digits(rng, 4)}[kind]
    title = rng.pick(("Dr. ", "Ms. ", "Mr. ", "Prof. "))
    person = a_person(rng)
    floor = rng.pick(("", ", 3rd floor", ", back entrance", ", flat 4"))
    text = rng.pick((f"Please deliver to: {title}{person[0]}, {street[0]} {house}{floor}, {postcode} {city[0]}, "
                     f"{country}",
                     f"Ship to\n{title}{person[0]}\n{street[0]} {house}{floor}\n{postcode} {city[0]}\n{country}"))
    fields = [F("name", "string", person[0], one_of(person, fold=True), f"string (without the title {title.strip()})"),
              F("street", "string", street[0], one_of(street, fold=True)),
              F("house_number", "string", house, eq(house)),
              F("postal_code", "string", postcode, one_of([postcode, postcode.replace(" ", "")], fold=True)),
              F("city", "string", city[0], one_of(city, fold=True)), F("country", "string", country)]
    return json_draft(rng, "address", text, fields)


def x_attendance(rng: Rng) -> Draft:
    names = rng.sample(FIRST, rng.between(4, 7))
    k = rng.between(1, 2)
    present, absent = names[k:], names[:k]
    d = a_day(rng)
    text = rng.pick((f"Minutes, {d.day} {MONTHS[d.month - 1]}. Present: {', '.join(present)}. Apologies: "
                     f"{', '.join(absent)}.", f"Roll call for {WEEKDAYS[d.weekday()]}'s rehearsal. Here: "
                     f"{listed(present)}. Missing: {listed(absent)}."))
    att = F("attendees", "raw", present, None, "array of first names", str_array(present),
            {str(i): eq(n, fold=True) for i, n in enumerate(present)})
    abs_ = F("absent", "raw", absent, None, "array of first names", str_array(absent),
             {str(i): eq(n, fold=True) for i, n in enumerate(absent)})
    return json_draft(rng, "attendance note", text, [att, abs_], ", each list in the order the names appear")


JOBS = ("Senior Data Engineer", "Backend Developer", "UX Researcher", "Project Manager", "Lab Technician",
        "Marketing Lead", "Site Reliability Engineer", "Accountant", "Warehouse Supervisor")


def x_job(rng: Rng) -> Draft:
    title, city = rng.pick(JOBS), rng.pick(CITIES)[0][0]
    lo = rng.between(30, 90) * 1000
    hi = lo + rng.between(5, 25) * 1000
    d = a_day(rng)
    text = rng.pick((f"We're hiring a {title} in {city} ({rng.pick(('hybrid', 'on site', 'remote-friendly'))}). "
                     f"Salary €{lo:,}-€{hi:,} per year. Apply by {spoken_date(rng, d)}.",
                     f"JOB: {title}\nLocation: {city}\nPay: {lo:,} to {hi:,} EUR a year\nClosing date: "
                     f"{spoken_date(rng, d)}"))
    fields = [F("title", "string", title), F("city", "string", city), F("salary_min_eur", "integer", lo),
              F("salary_max_eur", "integer", hi), F("deadline", "date", d.isoformat())]
    return json_draft(rng, "job ad", text, fields)


def x_hotel(rng: Rng) -> Draft:
    guest = a_person(rng)
    hotel = rng.pick(("Hotel Aurora", "The Linden", "Casa Azul", "Harbour Inn", "Hotel Nordlys", "Villa Sole"))
    start = a_day(rng)
    nights = rng.between(1, 9)
    end = start + dt.timedelta(days=nights)
    room, breakfast = rng.pick(("single", "double", "twin", "suite")), rng.chance(0.5)
    text = (f"Booking confirmation for {guest[0]}: {hotel}, check-in {spoken_date(rng, start)}, check-out "
            f"{spoken_date(rng, end)} ({nights} night{'s' if nights > 1 else ''}), {room} room, "
            f"{'breakfast included' if breakfast else 'room only, no breakfast'}.")
    fields = [F("guest", "string", guest[0], one_of(guest, fold=True)), F("check_in", "date", start.isoformat()),
              F("check_out", "date", end.isoformat()), F("nights", "integer", nights),
              enum_f("room_type", ("single", "double", "twin", "suite"), room),
              F("breakfast_included", "boolean", breakfast)]
    return json_draft(rng, "hotel booking", text, fields)


def x_forecast(rng: Rng) -> Draft:
    city = rng.pick(CITIES)[0][0]
    low = rng.between(-15, 20)
    high = low + rng.between(2, 12)
    wind, rain = rng.between(0, 70), rng.between(0, 100)
    sky = rng.pick(("sunny spells", "snow showers through the afternoon", "low cloud", "thunderstorms later",
                    "clear skies"))
    text = (f"{city}, {rng.pick(WEEKDAYS)}: {sky}, a high of {high} °C and a low of {low} °C, wind from the "
            f"{rng.pick(('north', 'south-west', 'east', 'north-west'))} at {wind} km/h, {rain}% chance of rain.")
    fields = [F("high_c", "integer", high), F("low_c", "integer", low), F("wind_kmh", "integer", wind),
              F("rain_chance_percent", "integer", rain)]
    return json_draft(rng, "forecast", text, rng.sample(fields, rng.between(2, 4)))


def x_commit(rng: Rng) -> Draft:
    sha = code(rng, 7, "0123456789abcdef")
    person = a_person(rng)
    first, last = person[-1].split(" ", 1)
    mail = email_of(rng, first, last.replace(" ", ""))
    pr = rng.between(10, 4999)
    d = a_day(rng, (2024, 2025))
    msg = rng.pick(("Fix off-by-one in pagination", "Add retry to upload client", "Bump parser to 2.4",
                    "Remove dead feature flag", "Handle empty config file"))
    text = (f"commit {sha}\nAuthor: {person[0]} <{mail}>\nDate:   {WEEKDAYS[d.weekday()][:3]} "
            f"{MONTHS[d.month - 1][:3]} {d.day} 10:14:09 {d.year} +0200\n\n    {msg} (#{pr})")
    fields = [F("hash", "string", sha, eq(sha)), F("author_email", "string", mail), F("pr_number", "integer", pr)]
    if rng.chance(0.4):
        fields.append(F("author_name", "string", person[0], one_of(person, fold=True)))
    return json_draft(rng, "git log entry", text, fields)


INGREDIENTS = (("flour", "g"), ("milk", "ml"), ("sugar", "tbsp"), ("butter", "g"), ("eggs", None), ("oats", "g"),
               ("honey", "tsp"), ("lemons", None), ("rice", "g"), ("stock", "ml"), ("onions", None), ("salt", "tsp"))


def x_recipe(rng: Rng) -> Draft:
    dish = rng.pick(("Pancakes", "Porridge", "Risotto", "Lemon cake", "Flatbread", "Soup"))
    serves = rng.between(2, 8)
    parts = rng.sample(INGREDIENTS, rng.between(3, 4))
    rows = [(name, rng.pick((1, 2, 3, 4)) if unit in (None, "tbsp", "tsp") else rng.between(2, 9) * 50, unit)
            for name, unit in parts]
    text = f"{dish} (serves {serves}): " + ", ".join(f"{a} {u} {n}" if u else f"{a} {n}" for n, a, u in rows) + "."
    item = {"type": "object", "properties": {"name": STR, "amount": NUM, "unit": {"type": ["string", "null"]}},
            "required": ["name", "amount", "unit"]}
    sub = {}
    for i, (n, a, u) in enumerate(rows):
        sub.update({f"{i}.name": eq(n, fold=True), f"{i}.amount": num(a), f"{i}.unit": eq(u, fold=u is not None)})
    ings = F("ingredients", "raw", [{"name": n, "amount": a, "unit": u} for n, a, u in rows], None,
             '[{"name": string, "amount": number, "unit": string or null}] (in the order listed, unit null when none '
             'is given)', {"type": "array", "items": item, "minItems": len(rows), "maxItems": len(rows)}, sub)
    return json_draft(rng, "recipe header", text, [F("servings", "integer", serves), ings])


def x_support(rng: Rng) -> Draft:
    person = a_person(rng)
    cid = f"C-{digits(rng, 5)}"
    product = rng.pick(("Photo Studio 5", "SyncBox", "Ledger Pro", "MapKit Desktop", "Clipboard+"))
    err = rng.pick(("E1042", "0x80070005", "ERR_TIMEOUT", "E-77", "SYNC_409"))
    priority = rng.pick(("low", "normal", "high"))
    text = (f"Ticket from {person[0]} (customer ID {cid}): {product} shows error {err} on startup. They marked the "
            f"priority as {priority}.")
    customer = F("customer", "raw", {"name": person[0], "id": cid}, None, '{"name": string, "id": string}',
                 {"type": "object", "properties": {"name": STR, "id": STR}, "required": ["name", "id"]},
                 {"name": one_of(person, fold=True), "id": eq(cid, fold=True)})
    issue = F("issue", "raw", {"product": product, "error_code": err}, None,
              '{"product": string, "error_code": string}',
              {"type": "object", "properties": {"product": STR, "error_code": STR},
               "required": ["product", "error_code"]},
              {"product": eq(product, fold=True), "error_code": eq(err, fold=True)})
    return json_draft(rng, "support ticket", text, [customer, issue, enum_f("priority", ("low", "normal", "high"),
                                                                            priority)])


def x_registration(rng: Rng) -> Draft:
    person = a_person(rng)
    first, last = person[-1].split(" ", 1)
    mail = email_of(rng, first, last.replace(" ", ""))
    ticket, size = rng.pick(("standard", "student", "vip")), rng.pick(("S", "M", "L", "XL"))
    event = rng.pick(("PyData Porto", "the Nordic Design Summit", "DevDays Vienna", "the Open Hardware Meetup"))
    text = rng.pick((f"New registration for {event}: {person[0]} ({mail}), {ticket} ticket, T-shirt size {size}.",
                     f"Name: {person[0]}\nEmail: {mail}\nEvent: {event}\nTicket type: {ticket}\nShirt: {size}"))
    fields = [F("attendee", "string", person[0], one_of(person, fold=True)), F("email", "string", mail),
              enum_f("ticket_type", ("standard", "student", "vip"), ticket),
              enum_f("t_shirt_size", ("S", "M", "L", "XL"), size)]
    return json_draft(rng, "registration", text, fields)


EXTRACT = [(T(x), 1) for x in (x_order, x_shipping, x_signature, x_meeting, x_sensor, x_log, x_flight,
                               x_prescription, x_address, x_attendance, x_invoice, x_job, x_ticket, x_spec,
                               x_transfer, x_hotel, x_forecast, x_commit, x_recipe, x_support, x_registration)]
