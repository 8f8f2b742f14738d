# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
python3 - <<'PY'
import zipfile
with zipfile.ZipFile("archive.zip") as z:
    z.extractall("extracted")
    files = sum(1 for info in z.infolist() if not info.is_dir())
with open("answer.txt", "w") as fh:
    fh.write("%d\n" % files)
PY
