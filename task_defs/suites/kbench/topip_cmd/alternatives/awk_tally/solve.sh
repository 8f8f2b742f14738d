# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
awk '{ n[$1]++ } END { for (a in n) if (n[a] > best) { best = n[a]; top = a }; print top }' access.log > answer.txt
