# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
grep -o '"port": *[0-9]*' settings.json | sed -n 2p | grep -o '[0-9]*$' > answer.txt
