# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
awk '$2 == "ERROR" { n++ } END { print n + 0 }' app.log > answer.txt
