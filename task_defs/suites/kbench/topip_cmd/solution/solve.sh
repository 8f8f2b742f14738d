# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
# first field only (addresses also appear in URLs, referers and user agents); sort before uniq
awk '{ print $1 }' access.log | sort | uniq -c | sort -k1,1nr | awk 'NR == 1 { print $2 }' > answer.txt
