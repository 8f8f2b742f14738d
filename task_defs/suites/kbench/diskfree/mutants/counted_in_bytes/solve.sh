# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
df -P --block-size=1 . | awk 'NR == 2 { print $4 }' > answer.txt
