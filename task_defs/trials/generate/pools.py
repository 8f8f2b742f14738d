"""The names, places and codes more than one family draws from, and `fill`, which puts drawn values into the
placeholders of a pooled text."""

from __future__ import annotations

import re

from task_defs.trials.generate.rng import Rng
from task_defs.trials.generate.rules import one_of
from task_defs.trials.generate.words import WEEKDAYS, a_time, say_time

FIRST = ("Jonas", "Priya", "Tom", "Aiko", "Marta", "Lena", "Omar", "Sofia", "Diego", "Hannah", "Kwame", "Mei", "Lucas",
         "Fatima", "Erik", "Ines", "Rahul", "Chloe", "Mateo", "Yuki", "Nadia", "Felix", "Amara", "Tariq", "Elena",
         "Noah", "Zara", "Ivan", "Leila", "Bruno", "Greta", "Samir", "Olga", "Pablo", "Ruth", "Kenji", "Anika", "Luca")
LAST = ("Berg", "Nair", "Okafor", "Silva", "Fischer", "Haddad", "Rossi", "Kowalski", "Tanaka", "Jensen", "Moreau",
        "Novak", "Costa", "Lindqvist", "Mensah", "Park", "Weber", "Alvarez", "Dubois", "Sato", "Byrne", "Horvat",
        "Petrov", "Suzuki", "Ali", "Larsen", "Brandt", "Quinn", "Ortiz", "Varga")
DOMAINS = ("example.com", "example.org", "example.net", "acme-corp.com", "northwind.example", "brightline.example",
           "mail.example", "studio-k.example")
CITIES = (  # spellings a right answer may use (the prompt writes the first), and the country
    (("Oslo",), "Norway"), (("Lisbon",), "Portugal"), (("Nairobi",), "Kenya"), (("Lima",), "Peru"),
    (("Hanoi",), "Vietnam"), (("Montreal", "Montréal"), "Canada"), (("Kraków", "Krakow"), "Poland"),
    (("Reykjavík", "Reykjavik"), "Iceland"), (("Cape Town",), "South Africa"), (("Seoul",), "South Korea"),
    (("Buenos Aires",), "Argentina"), (("Edinburgh",), "United Kingdom"), (("Porto",), "Portugal"),
    (("Vienna",), "Austria"), (("Dublin",), "Ireland"), (("Helsinki",), "Finland"),
    (("Marrakesh", "Marrakech"), "Morocco"), (("Istanbul",), "Turkey"), (("Bangkok",), "Thailand"),
    (("Auckland",), "New Zealand"), (("Denver",), "USA"), (("Vancouver",), "Canada"), (("Bergen",), "Norway"),
    (("Seville", "Sevilla"), "Spain"), (("Munich", "München"), "Germany"), (("Zürich", "Zurich"), "Switzerland"),
    (("Gothenburg", "Göteborg"), "Sweden"), (("Osaka",), "Japan"), (("Mumbai",), "India"), (("Accra",), "Ghana"),
    (("Tallinn",), "Estonia"), (("Ljubljana",), "Slovenia"), (("Hobart",), "Australia"), (("Quito",), "Ecuador"),
    (("Copenhagen", "København"), "Denmark"), (("Athens",), "Greece"), (("Chicago",), "USA"),
    (("Glasgow",), "United Kingdom"), (("Bordeaux",), "France"), (("Kyoto",), "Japan"),
)


def city_rule(city) -> dict:
    names, country = city
    return one_of([*names, *(f"{n}, {country}" for n in names)], fold=True)


def email_of(rng: Rng, first: str, last: str) -> str:
    local = rng.pick((f"{first}.{last}", f"{first[0]}{last}", f"{first}", f"{first}_{last}")).lower()
    return f"{local}@{rng.pick(DOMAINS)}"


def phone(rng: Rng) -> str:
    cc, lead, rest = rng.pick((("+44", "7700", 6), ("+49", "151", 8), ("+33", "6", 8), ("+1", "415555", 4),
                               ("+61", "4", 8), ("+34", "6", 8), ("+39", "3", 9), ("+31", "6", 8), ("+46", "70", 7),
                               ("+81", "90", 8), ("+351", "91", 7), ("+353", "85", 7)))
    return cc + lead + "".join(str(rng.below(10)) for _ in range(rest))


def digits(rng: Rng, n: int) -> str:
    return str(rng.between(1, 9)) + "".join(str(rng.below(10)) for _ in range(n - 1))


def code(rng: Rng, n: int, alphabet: str = "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789") -> str:
    return "".join(rng.pick(alphabet) for _ in range(n))


COMPANIES = ("Northwind", "Brightline Logistics", "Acme Corp", "Blue Harbor Labs", "Kestrel Energy", "Orbit Foods",
             "Fjord Analytics", "Sunmill Studio")
RESTAURANTS = ("Luigi's", "The Green Fork", "Sakura Sushi", "Casa Lola", "Bistro Margaux", "The Old Mill",
               "Spice Route", "Nordic Table", "El Faro", "Trattoria Rosa", "Blue Lotus", "The Harbour Grill",
               "Café Central", "Mezze House", "Golden Dragon", "Little Lisbon")
CARRIERS = (("DHL", "JD", 12, "0123456789"), ("UPS", "1Z", 16, "0123456789ABCDEFGHJKLMNPRSTUVWXY"),
            ("FedEx", "", 12, "0123456789"), ("USPS", "9400", 18, "0123456789"), ("Royal Mail", "RM", 9, "0123456789"),
            ("PostNL", "3S", 13, "0123456789ABCDEFGHJKLMNPQRSTUVWXYZ"), ("DPD", "", 14, "0123456789"),
            ("GLS", "", 11, "0123456789"), ("Canada Post", "", 16, "0123456789"), ("La Poste", "6A", 11, "0123456789"))
EVENT_TITLES = ("Dentist appointment", "Team offsite", "Quarterly review", "Yoga class", "Parent-teacher meeting",
                "Car service", "Haircut", "Piano lesson", "Book club", "Project kickoff", "Flat viewing",
                "Vet check-up", "Budget review", "Sprint planning", "Tax advisor call", "Physio session",
                "Coffee with {other}", "Call with {other}", "Guitar lesson", "Design review", "Board meeting",
                "Farewell drinks", "Job interview", "Running club", "Volunteer shift", "Swimming lesson",
                "Language exchange", "Gym induction", "Wine tasting", "School concert")


def fill(rng: Rng, text: str) -> str:
    """Random values for the placeholders a pooled text may hold."""
    values = {"n": str(rng.between(2, 95)), "m": str(rng.between(1, 40)), "day": rng.pick(WEEKDAYS),
              "time": say_time(rng, a_time(rng, 8, 18)), "room": f"{rng.between(1, 6)}{rng.pick('ABCD')}",
              "other": rng.pick(FIRST), "company": rng.pick(COMPANIES), "amount": f"{rng.between(2, 60) * 500:,}",
              "code4": digits(rng, 4)}
    return re.sub(r"\{(\w+)\}", lambda m: values[m.group(1)], text)
