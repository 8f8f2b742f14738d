# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
# step 1
find data -type f -exec stat --printf '%s\t%n\n' {} + > sizes.txt
# step 2
sort -rn sizes.txt > sorted.txt
# step 3
awk -F '\t' 'NR <= 3 { print $2 }' sorted.txt > answer.txt
