# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
python3 - <<'PY'
import zipfile
with zipfile.ZipFile('archive.zip') as z:
    files = [n for n in z.namelist() if not n.endswith('/')]
    for name in files:
        z.extract(name, 'extracted')
open('answer.txt', 'w').write('%d\n' % len(files))
PY
