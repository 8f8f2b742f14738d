# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
# step 1
cut -d ' ' -f1 access.log > ips.txt
# step 2
awk '{ n[$1]++ } END { for (a in n) print n[a], a }' ips.txt | sort -rn > counts.txt
# step 3
sed -n '1s/^ *[0-9][0-9]* *//p' counts.txt > answer.txt
