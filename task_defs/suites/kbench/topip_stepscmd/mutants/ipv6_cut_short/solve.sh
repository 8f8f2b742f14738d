# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
# step 1
grep -o '^[0-9.]*' access.log > ips.txt
# step 2
sort ips.txt | uniq -c | sort -k1,1nr > counts.txt
# step 3
awk 'NR == 1 { print $2 }' counts.txt > answer.txt
