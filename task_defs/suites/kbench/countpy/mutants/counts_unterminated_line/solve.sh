# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
python3 - <<'PY' > answer.txt
import os
total = 0
for folder, _dirs, names in os.walk('src'):
    for name in names:
        path = os.path.join(folder, name)
        if name.endswith('.py') and os.path.isfile(path):
            with open(path, 'rb') as fh:
                total += sum(1 for _line in fh)
print(total)
PY
