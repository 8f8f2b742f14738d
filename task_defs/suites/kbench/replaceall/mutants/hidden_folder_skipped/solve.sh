# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
find docs -name '.*' -prune -o -type f -name '*.txt' -exec sed -i 's/foo/bar/g' {} +
