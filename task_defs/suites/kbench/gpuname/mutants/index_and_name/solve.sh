# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
nvidia-smi --query-gpu=index,name --format=csv,noheader | head -n 1 > answer.txt
