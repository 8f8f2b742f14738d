# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
find src -type f -name '*.py' -not -path '*/.*' -print0 | xargs -0 cat | wc -l > answer.txt
