# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
python3 -c 'print(len(open("story.txt", "rb").read().split()))' > answer.txt
