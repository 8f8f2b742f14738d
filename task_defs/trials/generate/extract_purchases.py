"""The extract family's documents about buying and paying: an order confirmation, a shipping notice, a flight
booking, an invoice, a concert ticket, a product listing and a bank transfer. EXTRACT (extract.py) lists them
among the family's templates; the order of that list, not the module a template lives in, fixes the draws."""

from __future__ import annotations

from task_defs.trials.generate.build import Draft
from task_defs.trials.generate.extract_fields import INT, NUM, STR, F, json_draft
from task_defs.trials.generate.pools import CARRIERS, FIRST, code, digits
from task_defs.trials.generate.rng import Rng
from task_defs.trials.generate.rules import eq, num, one_of
from task_defs.trials.generate.words import MONTHS, WEEKDAYS, a_day, a_time, hhmm, spoken_date

SHOP_PRODUCTS = ("Ceramic mug (ocean blue)", "Linen tea towel", "Bamboo cutting board", "Wool socks, size 42",
                 "Desk plant in a pot", "Notebook A5, dotted", "Steel water bottle 750 ml", "Scented candle (fig)",
                 "USB-C cable, 2 m", "Cotton tote bag", "Espresso cups, set of 2", "Enamel pin (fox)")


def x_order(rng: Rng) -> Draft:
    oid = f"{rng.pick('ABCKMRTW')}-{digits(rng, 5)}"
    product, q = rng.pick(SHOP_PRODUCTS), rng.between(1, 8)
    price = rng.between(3, 180) + rng.pick((0, 0.5, 0.99, 0.25, 0.9))
    total = round(q * price, 2)
    cur, sym = rng.pick((("EUR", "€"), ("USD", "$"), ("GBP", "£")))
    fields = [F("order_id", "string", oid, eq(oid, fold=True), "string (without the #)"), F("quantity", "integer", q),
              F("unit_price", "number", price), F("total", "number", total)]
    form = rng.below(3)
    if form == 0:
        text = (f"Thanks for your order #{oid}! You bought {q} x {product} at {price:.2f} {cur} each. Order total: "
                f"{total:.2f} {cur}, shipping included.")
    elif form == 1:
        text = (f"Order #{oid} confirmed.\nItem: {product}\nQuantity: {q}\nUnit price: {sym}{price:.2f}\n"
                f"Total: {sym}{total:.2f}")
    else:
        text = (f"Hi {rng.pick(FIRST)}, we've received order #{oid}: {q} × {product} ({price:.2f} {cur} each), "
                f"{total:.2f} {cur} in total.")
    if form != 1:
        fields.append(F("currency", "string", cur, eq(cur, fold=True), "string (ISO code)"))
    return json_draft(rng, "order confirmation", text, fields)


def x_shipping(rng: Rng) -> Draft:
    carrier, prefix, n, alphabet = rng.pick(CARRIERS)
    number = prefix + code(rng, n, alphabet)
    day = a_day(rng)
    sign = rng.chance(0.5)
    t1 = rng.between(8, 14)
    if rng.chance(0.5):
        text = (f"Your parcel is on its way! Carrier: {carrier}. Tracking number: {number}. Expected delivery: "
                f"{spoken_date(rng, day)} between {t1}:00 and {t1 + 4}:00.")
        fields = []
    else:
        how = "A signature is required on delivery." if sign else "No signature is needed; it can be left at the door."
        text = f"{carrier} update: shipment {number} will be delivered on {spoken_date(rng, day)}. {how}"
        fields = [F("signature_required", "boolean", sign)]
    fields = [F("carrier", "string", carrier), F("tracking_number", "string", number), F("delivery_date", "date",
                                                                                         day.isoformat()), *fields]
    return json_draft(rng, "shipping notice", text, fields)


AIRPORTS = (("Frankfurt", "FRA"), ("Lisbon", "LIS"), ("Madrid", "MAD"), ("Amsterdam", "AMS"), ("Paris", "CDG"),
            ("London", "LHR"), ("Rome", "FCO"), ("Vienna", "VIE"), ("Zurich", "ZRH"), ("Copenhagen", "CPH"),
            ("Oslo", "OSL"), ("Dublin", "DUB"), ("Athens", "ATH"), ("Istanbul", "IST"), ("Munich", "MUC"),
            ("Barcelona", "BCN"), ("Helsinki", "HEL"), ("Warsaw", "WAW"), ("Prague", "PRG"), ("Brussels", "BRU"))


def x_flight(rng: Rng) -> Draft:
    (c1, a1), (c2, a2) = rng.sample(AIRPORTS, 2)
    airline, no = rng.pick(("LH", "TP", "IB", "KL", "AF", "BA", "AZ", "OS", "LX", "SK", "FR", "U2", "A3", "TK")), \
        rng.between(100, 4999)
    d, t = a_day(rng), a_time(rng, 5, 22)
    seat = f"{rng.between(1, 38)}{rng.pick('ABCDEF')}"
    text = rng.pick((f"Your booking is confirmed. Flight {airline} {no} from {c1} ({a1}) to {c2} ({a2}), departing "
                     f"{spoken_date(rng, d)} at {hhmm(t)}. Seat {seat}, one checked bag included.",
                     f"BOARDING PASS\n{airline}{no}  {a1} → {a2}\n{c1} to {c2}\nDate: {spoken_date(rng, d)}  "
                     f"Departs: {hhmm(t)}\nSeat: {seat}  Group: {rng.between(1, 5)}"))
    fields = [F("flight_number", "string", f"{airline} {no}", one_of([f"{airline} {no}", f"{airline}{no}"], fold=True)),
              F("from_iata", "string", a1, eq(a1, fold=True)), F("to_iata", "string", a2, eq(a2, fold=True)),
              F("date", "date", d.isoformat()), F("seat", "string", seat)]
    if rng.chance(0.4):
        fields.append(F("departure_time", "time", hhmm(t)))
    return json_draft(rng, "flight confirmation", text, fields)


def x_invoice(rng: Rng) -> Draft:
    number = f"{rng.between(2023, 2025)}-{rng.between(10, 999)}"
    goods = rng.sample((("KB", "wireless keyboard"), ("MS", "mouse"), ("HD", "USB hub"), ("CB", "HDMI cable"),
                        ("LS", "laptop stand"), ("WC", "webcam"), ("HS", "headset"), ("DP", "docking station")),
                       rng.between(2, 3))
    rows = [(f"{p}-{rng.between(100, 999)}", what, rng.between(1, 6), rng.between(5, 150) + rng.pick((0, 0.5, 0.9)))
            for p, what in goods]
    text = f"Invoice {number}\n" + "\n".join(f"- SKU {s} {w} x{q} @ {pr:.2f}" for s, w, q, pr in rows)
    text += f"\nSubtotal: {sum(q * pr for _, _, q, pr in rows):.2f}"
    item = {"type": "object", "properties": {"sku": STR, "quantity": INT, "unit_price": NUM},
            "required": ["sku", "quantity", "unit_price"]}
    sub = {}
    for i, (s, _, q, pr) in enumerate(rows):
        sub.update({f"{i}.sku": eq(s, fold=True), f"{i}.quantity": eq(q), f"{i}.unit_price": num(pr, 0.005)})
    items = F("items", "raw", [{"sku": s, "quantity": q, "unit_price": pr} for s, _, q, pr in rows], None,
              '[{"sku": string, "quantity": integer, "unit_price": number}] (one per line, in order)',
              {"type": "array", "items": item, "minItems": len(rows), "maxItems": len(rows)}, sub)
    return json_draft(rng, "invoice", text, [F("invoice_number", "string", number, eq(number)), items])


ARTISTS = ("Velvet Harbour", "Northern Static", "Juniper Sky", "The Paper Lanterns", "Mira Solenne", "Kofi & the Tide",
           "Glass Orchard", "Lumen Drive")
VENUES = (("Ziggo Dome", "Amsterdam"), ("O2 Academy", "Glasgow"), ("Paradiso", "Amsterdam"), ("Olympia", "Paris"),
          ("Columbiahalle", "Berlin"), ("Coliseu", "Porto"), ("Gasometer", "Vienna"), ("Vega", "Copenhagen"))


def x_ticket(rng: Rng) -> Draft:
    artist, (venue, city) = rng.pick(ARTISTS), rng.pick(VENUES)
    d, t = a_day(rng), a_time(rng, 18, 21)
    row, seat = rng.pick("ABCDEFGHJK"), rng.between(1, 40)
    price = rng.between(25, 140) + rng.pick((0, 0.5, 0.9))
    text = (f"E-TICKET | {artist} | {venue}, {city} | {WEEKDAYS[d.weekday()][:3]} {d.day} {MONTHS[d.month - 1]} "
            f"{d.year} | Doors {hhmm(t)} | Row {row}, Seat {seat} | €{price:.2f} incl. fees")
    fields = [F("artist", "string", artist), F("venue", "string", venue), F("city", "string", city),
              F("date", "date", d.isoformat()), F("row", "string", row), F("seat", "integer", seat),
              F("price_eur", "number", price)]
    return json_draft(rng, "concert ticket", text, rng.sample(fields, rng.between(4, 6)))


def x_spec(rng: Rng) -> Draft:
    model = rng.pick(("ThinkPad X1 Carbon", "Aero 14", "ZenBook S", "Swift Go", "Latitude 7440", "Pavilion Plus"))
    ram, storage = rng.pick((8, 16, 32, 64)), rng.pick((256, 512, 1024, 2048))
    screen, weight = rng.pick((13.3, 14, 15.6, 16)), rng.between(95, 210) / 100
    price = rng.between(6, 30) * 100 - 1
    old = price + rng.between(1, 5) * 100
    text = (f"{model} - {screen:g}-inch display, {ram} GB RAM, {storage} GB SSD, weighs just {weight:.2f} kg. "
            f"Now {price:,.2f} USD (was {old:,.2f} USD).")
    fields = [F("ram_gb", "integer", ram), F("storage_gb", "integer", storage), F("screen_inches", "number", screen,
                                                                                  num(screen, 0.01)),
              F("weight_kg", "number", weight, num(weight, 0.001)), F("price_usd", "number", float(price))]
    return json_draft(rng, "product listing", text, fields)


def x_transfer(rng: Rng) -> Draft:
    cc, n = rng.pick((("DE", 20), ("NL", 16), ("CH", 19), ("ES", 22), ("FR", 25), ("AT", 18)))
    iban = cc + digits(rng, n)
    grouped = " ".join(iban[i:i + 4] for i in range(0, len(iban), 4))
    amount = rng.between(20, 9000) + rng.pick((0, 0.5, 0.75, 0.99))
    cur = rng.pick(("EUR", "CHF", "USD"))
    ref = rng.pick(("Rent May", "Invoice 2291", "Deposit flat 3B", "Membership 2025", "Thank you", "Order A-7710"))
    text = (f"You sent {amount:,.2f} {cur} to IBAN {grouped} with the reference \"{ref}\". The transfer will arrive "
            f"within one business day.")
    fields = [F("amount", "number", amount), F("currency", "string", cur, eq(cur, fold=True), "string (ISO code)"),
              F("iban", "string", grouped, one_of([grouped, iban], fold=True)), F("reference", "string", ref)]
    return json_draft(rng, "banking notification", text, fields)
