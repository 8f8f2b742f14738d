# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
awk '$2 == "ERROR"' app.log | wc > answer.txt
