# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
unzip -q archive.zip -d extracted
unzip -q extracted/report/2023/archive.zip -d extracted/report/2023
rm extracted/report/2023/archive.zip
find extracted -type f | wc -l > answer.txt
