# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
grep -v '^#' names.txt | tr -d '\r' | awk 'NF { $1 = $1; print }' | LC_ALL=C sort -u > unique_names.txt
