# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
# step 1
find data -type f -exec du --apparent-size -b {} + > sizes.txt
# step 2
sort -rn sizes.txt > sorted.txt
# step 3
sed -n '1,3s/^[0-9]*\t//p' sorted.txt > answer.txt
