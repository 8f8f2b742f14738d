# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
python3 - <<'PY'
with open("scores.csv", newline="") as fh:
    header, *rows = fh.read().splitlines()
at = header.split(",").index("score")
rows = sorted(rows, key=lambda line: -float(line.split(",")[at]))
with open("sorted.csv", "w", newline="") as fh:
    fh.write("".join(line + "\n" for line in [header] + rows))
PY
