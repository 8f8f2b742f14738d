# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
cut -d ' ' -f1 access.log | sort | uniq -c | sort -rn | head -n 1 | cut -d ' ' -f2 > answer.txt
