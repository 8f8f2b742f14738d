# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
python3 - <<'PY'
names = set()
for line in open("names.txt", encoding="utf-8"):
    name = " ".join(line.split())
    if name and not name.startswith("#"):
        names.add(name)
with open("unique_names.txt", "w", encoding="utf-8") as fh:
    fh.writelines(n + "\n" for n in sorted(names, key=lambda n: n.encode("utf-8")))
PY
