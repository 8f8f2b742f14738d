# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
nvidia-smi --query-gpu=name --format=csv > answer.txt
