# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
awk '$2 == "ERROR"' app.log > app.log.tmp && mv app.log.tmp app.log
wc -l < app.log > answer.txt
