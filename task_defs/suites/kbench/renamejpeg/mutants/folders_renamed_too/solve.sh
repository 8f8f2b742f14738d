# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
find photos -depth -name '*.jpeg' -print0 |
while IFS= read -r -d '' f; do
    mv -n -- "$f" "${f%.jpeg}.jpg"
done
