# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
find data -type f -printf '%s\t%p\n' | sort -t "$(printf '\t')" -k1,1n | tail -n 3 | cut -f2- > answer.txt
