# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
grep -oE '[A-Za-z0-9._-]+@([A-Za-z0-9-]+\.)+[A-Za-z]{2,}' notes.txt | tr 'A-Z' 'a-z' | LC_ALL=C sort -u > answer.txt
