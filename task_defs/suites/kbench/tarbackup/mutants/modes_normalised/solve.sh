# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
python3 - <<'PY'
import tarfile
def normalise(info):
    if info.isfile():
        info.mode = 0o644
    return info
with tarfile.open('backup.tar.gz', 'w:gz') as tf:
    tf.add('site', filter=normalise)
PY
