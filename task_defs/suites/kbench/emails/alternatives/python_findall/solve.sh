# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
python3 - <<'PY'
import re
text = open("notes.txt", encoding="utf-8").read()
found = {m.lower() for m in re.findall(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?![A-Za-z])", text)}
open("answer.txt", "w").write("".join(a + "\n" for a in sorted(found, key=str.encode)))
PY
