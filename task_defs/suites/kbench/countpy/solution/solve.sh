# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
# Regular files named *.py (hidden ones included), names with spaces kept intact; cat then wc -l
# counts newline characters over all of them at once.
find src -type f -name '*.py' -print0 | xargs -0 cat | wc -l > answer.txt
