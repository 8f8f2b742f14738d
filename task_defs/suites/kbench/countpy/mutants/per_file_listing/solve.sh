# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
find src -type f -name '*.py' -exec wc -l {} + > answer.txt
