# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
python3 - <<'PY'
import os
for folder, _dirs, names in os.walk("photos"):
    for name in names:
        path = os.path.join(folder, name)
        if name.endswith(".jpeg") and os.path.isfile(path) and not os.path.islink(path):
            os.rename(path, path[: -len(".jpeg")] + ".jpg")
PY
