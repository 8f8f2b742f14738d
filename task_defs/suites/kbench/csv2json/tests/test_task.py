# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import json

import kbtest as kb

KEYS = ["id", "name", "city", "zip", "email", "note"]
ROWS = [
    ["1", "Maria Lopez", "Austin", "78701", "maria.lopez@example.com", "prefers email"],
    ["2", "Okafor, Chidi", "Lagos, NG", "100001", "chidi@example.org", ""],
    ["3", "J\u00fcrgen Wei\u00df", "M\u00fcnchen", "80331", "jw@example.de", 'said "call me J" twice'],
    ["4", "Ana Souza", "Portland, OR", "02134", "ana.souza@example.com", "vip, annual plan"],
    ["5", "Lee Min-jun", "Seoul", "04524", "minjun@example.kr", "007"],
    ["6", "O'Brien, Siobhan", "Cork", "T12", "siobhan@example.ie", 'moved from "Dublin, IE"'],
    ["7", "Tom Baker", "Leeds", "LS1", "tom@example.co.uk", "true"],
]
WANT = [dict(zip(KEYS, r)) for r in ROWS]


def people():
    with open(kb.path("people.json"), encoding="utf-8") as fh:
        try:
            data = json.load(fh)
        except ValueError as exc:
            raise AssertionError("people.json is not valid JSON: %s" % exc)
    kb.ok(isinstance(data, list), "people.json must hold a JSON list, got %s" % type(data).__name__)
    kb.ok(all(isinstance(x, dict) for x in data), "every element of the list must be a JSON object")
    return data


@kb.case
def one_object_per_row_in_order():
    data = people()
    kb.eq(len(data), len(WANT), "number of objects")
    kb.eq([p.get("id") for p in data], [w["id"] for w in WANT], "ids in row order")


@kb.case
def keys_are_the_header_names():
    for i, p in enumerate(people()):
        kb.eq(sorted(p), sorted(KEYS), "keys of object %d" % i)


@kb.case
def every_value_is_a_string():
    for i, p in enumerate(people()):
        for k, v in p.items():
            kb.ok(isinstance(v, str), "object %d, key %r: value must be a string, got %r" % (i, k, v))


@kb.case
def plain_values_exact():
    data = people()
    for i in (0, 4, 6):
        kb.eq(data[i] if i < len(data) else None, WANT[i], "object %d" % i)


@kb.case
def quoted_fields_exact():
    # commas and doubled quotes inside quoted fields, an empty field, non-ASCII text
    data = people()
    for i in (1, 2, 3, 5):
        kb.eq(data[i] if i < len(data) else None, WANT[i], "object %d" % i)


kb.main()
