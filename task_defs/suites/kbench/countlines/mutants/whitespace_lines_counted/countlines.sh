#!/usr/bin/env bash
# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
if [ "$#" -lt 1 ] || [ ! -f "$1" ]; then
    echo "countlines.sh: cannot read ${1-(no argument)}" >&2
    exit 1
fi
grep -c . "$1" || true
