# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
set -- $(grep -v "^#" dates.txt)
echo $(( ($(TZ=UTC date -d "$2" +%s) - $(TZ=UTC date -d "$1" +%s)) / 86400 )) > answer.txt
