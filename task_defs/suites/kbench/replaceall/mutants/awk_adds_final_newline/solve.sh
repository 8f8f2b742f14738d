# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
find docs -type f -name '*.txt' -print0 |
while IFS= read -r -d '' f; do
    awk '{ gsub(/foo/, "bar") } 1' "$f" > "$f.tmp" && mv "$f.tmp" "$f"
done
