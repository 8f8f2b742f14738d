# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
python3 - <<'PY'
import datetime
dates = [l.strip() for l in open('dates.txt') if l.strip() and not l.startswith('#')]
start, end = (datetime.datetime.strptime(d, '%d/%m/%Y').date() for d in dates)
open('answer.txt', 'w').write('%d days\n' % (end - start).days)
PY
