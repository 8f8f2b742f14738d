# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
python3 -c 'import json; [print(r["port"]) for r in json.load(open("settings.json"))["database"]["replicas"]]' > answer.txt
