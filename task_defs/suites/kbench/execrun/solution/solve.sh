# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
# stdout only: the script's progress note goes to stderr and must not land in output.txt.
chmod u+x tool.sh
./tool.sh > output.txt
