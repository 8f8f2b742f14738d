# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
chmod a+x tool.sh
./tool.sh 2>/dev/null | tee output.txt > /dev/null
