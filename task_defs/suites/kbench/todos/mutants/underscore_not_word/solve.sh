# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
grep -rlE --null '(^|[^A-Za-z0-9])TODO([^A-Za-z0-9]|$)' project | tr '\0' '\n' | LC_ALL=C sort > answer.txt
