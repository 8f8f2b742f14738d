# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
python3 - <<'PY'
import os
import stat
sizes = []
for folder, _dirs, names in os.walk("data"):
    for name in names:
        path = os.path.join(folder, name)
        st = os.lstat(path)
        if stat.S_ISREG(st.st_mode):
            sizes.append((st.st_size, path))
top = sorted(sizes, key=lambda s: -s[0])[:3]
with open("answer.txt", "w") as fh:
    fh.writelines(path + "\n" for _size, path in top)
PY
