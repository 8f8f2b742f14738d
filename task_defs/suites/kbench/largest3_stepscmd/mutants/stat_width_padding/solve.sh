# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
# step 1
find data -type f -exec stat --printf '%12s\t%n\n' {} + > sizes.txt
# step 2
sort -t "$(printf '\t')" -k1,1nr sizes.txt > sorted.txt
# step 3
head -n 3 sorted.txt | cut -f2- > answer.txt
