# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
tr -d '\r' < names.txt | awk 'NF { $1 = $1; if (substr($0, 1, 1) != "#") print }' | LC_ALL=C sort -u -f > unique_names.txt
