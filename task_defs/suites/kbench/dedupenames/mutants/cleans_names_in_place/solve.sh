# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
sed -i -E 's/\r//g; s/^[ \t]+//; s/[ \t]+$//; s/[ \t]+/ /g; /^(#.*)?$/d' names.txt
LC_ALL=C sort -u names.txt > unique_names.txt
