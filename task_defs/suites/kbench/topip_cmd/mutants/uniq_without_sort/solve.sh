# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
awk '{ print $1 }' access.log | uniq -c | sort -k1,1nr | head -n 1 | awk '{ print $2 }' > answer.txt
