# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
find photos -type f -name '*.jpeg' -print0 |
while IFS= read -r -d '' f; do
    cp -p -- "$f" "${f%.jpeg}.jpg"
done
