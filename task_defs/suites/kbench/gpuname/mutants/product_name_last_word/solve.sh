# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
nvidia-smi -q | grep -m 1 'Product Name' | awk '{ print $NF }' > answer.txt
