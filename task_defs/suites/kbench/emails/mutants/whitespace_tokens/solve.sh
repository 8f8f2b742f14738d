# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
tr -s ' \t' '\n\n' < notes.txt | grep '@' | sed 's/[.,;!]*$//' | tr 'A-Z' 'a-z' | LC_ALL=C sort -u > answer.txt
