# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
# Naming the folder (not ./site or site/*) gives member paths site/..., hidden files and empty folders included.
tar -czf backup.tar.gz site
