# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
sort -k1,1 -o access.log access.log
cut -d ' ' -f1 access.log | uniq -c | sort -rn | head -n 1 | awk '{ print $2 }' > answer.txt
