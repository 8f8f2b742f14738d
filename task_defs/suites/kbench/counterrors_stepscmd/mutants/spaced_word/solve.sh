# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
# step 1
grep ' ERROR ' app.log > errors.txt
# step 2
wc -l < errors.txt > answer.txt
