# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
python3 - <<'PY'
import json
with open('people.csv', encoding='utf-8') as fh:
    header, *rows = [line.rstrip('\n') for line in fh if line.strip()]
keys = header.split(',')
out = [dict(zip(keys, (v.strip('"') for v in row.split(',')))) for row in rows]
with open('people.json', 'w', encoding='utf-8') as fh:
    json.dump(out, fh, ensure_ascii=False, indent=2)
PY
