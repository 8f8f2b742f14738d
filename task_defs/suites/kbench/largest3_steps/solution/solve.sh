# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
# step 1: apparent size (%s), regular files only, hidden ones included
find data -type f -printf '%s\t%p\n' > sizes.txt
# step 2: numeric on the size field only, largest first
sort -t "$(printf '\t')" -k1,1nr sizes.txt > sorted.txt
# step 3: the path part of the first three lines (paths may hold spaces)
head -n 3 sorted.txt | cut -f2- > answer.txt
