# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
sort -s -t, -k3,3gr scores.csv > sorted.csv
