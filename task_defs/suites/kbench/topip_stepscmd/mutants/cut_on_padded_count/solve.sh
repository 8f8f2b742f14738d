# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
# step 1
awk '{ print $1 }' access.log > ips.txt
# step 2
sort ips.txt | uniq -c | sort -k1,1nr > counts.txt
# step 3
head -n 1 counts.txt | cut -d ' ' -f2 > answer.txt
