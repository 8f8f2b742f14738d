#!/usr/bin/env bash
# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
path=${1-}
if [ -z "$path" ]; then
    printf 'usage: bash countlines.sh FILE\n' >&2
    exit 1
elif ! [ -f "$path" ]; then
    printf 'countlines.sh: %s: not found\n' "$path" >&2
    exit 1
fi
total=0
while IFS= read -r row || [ -n "$row" ]; do
    [[ $row == *[![:space:]]* ]] && total=$((total + 1))
done < "$path"
printf '%d\n' "$total"
