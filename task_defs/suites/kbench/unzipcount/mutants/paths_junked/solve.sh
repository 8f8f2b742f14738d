# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
unzip -qjo archive.zip -d extracted
unzip -Z1 archive.zip | grep -vc '/$' > answer.txt
