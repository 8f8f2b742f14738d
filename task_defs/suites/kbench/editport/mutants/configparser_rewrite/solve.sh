# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
python3 - <<'PY'
import configparser
cfg = configparser.ConfigParser()
cfg.read('server.conf')
cfg['server']['port'] = '9090'
with open('server.conf', 'w') as fh:
    cfg.write(fh)
PY
