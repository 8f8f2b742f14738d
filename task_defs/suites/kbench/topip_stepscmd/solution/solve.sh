# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
# step 1: the client address of every request, in log order
awk '{ print $1 }' access.log > ips.txt
# step 2: requests per address, most first
sort ips.txt | uniq -c | sort -k1,1nr > counts.txt
# step 3: the address on the first line
awk 'NR == 1 { print $2 }' counts.txt > answer.txt
