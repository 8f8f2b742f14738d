# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
python3 -c '
with open("app.log") as fh:
    n = sum(1 for line in fh if line.split()[1:2] == ["ERROR"])
print(n)
' > answer.txt
