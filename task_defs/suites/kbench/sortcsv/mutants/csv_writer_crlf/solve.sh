# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
python3 - <<'PY'
import csv
with open('scores.csv', newline='') as fh:
    header, *rows = list(csv.reader(fh))
rows.sort(key=lambda r: -float(r[2]))
with open('sorted.csv', 'w', newline='') as fh:
    csv.writer(fh).writerows([header] + rows)
PY
