# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
shopt -s globstar
for f in data/**; do
    [ -f "$f" ] && printf '%s\t%s\n' "$(stat -c %s -- "$f")" "$f"
done | sort -t "$(printf '\t')" -k1,1nr | head -n 3 | cut -f2- > answer.txt
