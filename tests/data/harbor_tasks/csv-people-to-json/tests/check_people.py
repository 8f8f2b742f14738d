import csv
import json
import sys

with open("/tests/people.csv.orig", newline="", encoding="utf-8") as fh:
    rows = list(csv.DictReader(fh))
want = [{"name": r["name"], "age": int(r["age"]), "city": r["city"]} for r in rows if r["age"].strip()]
try:
    with open("/app/people.json", encoding="utf-8") as fh:
        got = json.load(fh)
except (OSError, ValueError) as exc:
    sys.exit(f"/app/people.json is missing or not JSON: {exc}")
if not isinstance(got, list) or any(not isinstance(o, dict) or type(o.get("age")) is not int for o in got):
    sys.exit("people.json must be an array of objects whose age is an integer")
if got != want:
    sys.exit(f"people.json holds {got}, expected {want}")
print("people.json is right")
