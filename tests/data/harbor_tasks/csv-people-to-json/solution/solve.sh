#!/bin/bash
cd /app
python3 - <<'PY'
import csv, json
with open("people.csv", newline="", encoding="utf-8") as fh:
    rows = [r for r in csv.DictReader(fh) if r["age"].strip()]
out = [{"name": r["name"], "age": int(r["age"]), "city": r["city"]} for r in rows]
with open("people.json", "w", encoding="utf-8") as fh:
    json.dump(out, fh, ensure_ascii=False, indent=2)
PY
