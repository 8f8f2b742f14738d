# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
unzip -q archive.zip -d extracted
unzip -l archive.zip | tail -n 1 | awk '{ print $2 }' > answer.txt
