# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
python3 - <<'PY'
import pathlib
for path in pathlib.Path('docs').rglob('*.txt'):
    path.write_text(path.read_text(errors='replace').replace('foo', 'bar'))
PY
