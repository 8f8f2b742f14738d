#!/usr/bin/env bash
# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
for arg in "$@"; do
    if [[ ! $arg =~ ^-?[0-9]+$ ]]; then
        echo "sumargs.sh: not an integer: $arg" >&2
        exit 2
    fi
done
printf '%s\n' "$@" | awk '{ s += $1 } END { printf "%d\n", s }'
