# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
python3 - <<'PY'
import os
import re
word = re.compile(rb"(?<![A-Za-z0-9_])TODO(?![A-Za-z0-9_])")
found = []
for folder, _dirs, names in os.walk("project"):
    for name in names:
        path = os.path.join(folder, name)
        with open(path, "rb") as fh:
            if word.search(fh.read()):
                found.append(path)
with open("answer.txt", "w") as fh:
    fh.writelines(p + "\n" for p in sorted(found, key=os.fsencode))
PY
