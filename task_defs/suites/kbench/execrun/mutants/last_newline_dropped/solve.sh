# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
chmod u+x tool.sh
printf '%s' "$(./tool.sh)" > output.txt
