# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
# unzip keeps the stored paths (and creates the empty folders); count regular files only, hidden
# ones included; the zip inside the zip stays one file.
unzip -q archive.zip -d extracted
find extracted -type f | wc -l > answer.txt
