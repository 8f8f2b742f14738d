# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
python3 - <<'PY'
import os
for folder, _dirs, names in os.walk("docs"):
    for name in names:
        path = os.path.join(folder, name)
        if name.endswith(".txt") and os.path.isfile(path):
            with open(path, "rb") as fh:
                data = fh.read()
            if b"foo" in data:
                with open(path, "r+b") as fh:
                    fh.write(data.replace(b"foo", b"bar"))  # same length: no truncation needed
PY
