# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
set -- $(awk -F/ '!/^#/ && NF == 3 { print $3 "-" $2 "-" $1 }' dates.txt)
echo $(( ($(TZ=UTC date -d "$2" +%s) - $(TZ=UTC date -d "$1" +%s)) / 86400 )) > answer.txt
