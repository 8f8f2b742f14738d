# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
unzip -q archive.zip -d extracted
echo "$(find extracted -type f | wc -l) files" > answer.txt
