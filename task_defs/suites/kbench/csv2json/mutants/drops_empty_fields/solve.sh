# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
python3 - <<'PY'
import csv, json
with open('people.csv', newline='', encoding='utf-8') as fh:
    rows = [{k: v for k, v in row.items() if v != ''} for row in csv.DictReader(fh)]
with open('people.json', 'w', encoding='utf-8') as fh:
    json.dump(rows, fh, ensure_ascii=False, indent=2)
PY
