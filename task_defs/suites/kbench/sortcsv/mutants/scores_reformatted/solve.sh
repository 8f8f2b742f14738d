# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
python3 - <<'PY'
lines = open('scores.csv').read().splitlines()
rows = [l.split(',') for l in lines[1:]]
rows.sort(key=lambda r: -float(r[2]))
with open('sorted.csv', 'w') as fh:
    fh.write(lines[0] + '\n')
    for r in rows:
        r[2] = str(float(r[2]))
        fh.write(','.join(r) + '\n')
PY
