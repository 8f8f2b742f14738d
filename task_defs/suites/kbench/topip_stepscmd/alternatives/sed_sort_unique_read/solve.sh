# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
# step 1
sed 's/ .*//' access.log > ips.txt
# step 2
sort ips.txt | uniq -c | sort -rn > counts.txt
# step 3
read -r count addr < counts.txt && printf '%s\n' "$addr" > answer.txt
