#!/usr/bin/env bash
# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
dir=${1-}
if [ ! -d "$dir" ]; then
    echo "largest.sh: $dir is not a directory" >&2
    exit 1
fi
cd -- "$dir" || exit 1
shopt -s globstar dotglob nullglob
for f in **; do
    [[ -f $f && ! -L $f ]] || continue
    printf '%s %s\n' "$(stat -c %s -- "$f")" "$f"
done | LC_ALL=C sort -s -k1,1nr -k2 | head -n 3
exit 0
