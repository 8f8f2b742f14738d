#!/usr/bin/env bash
# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
if [ "$#" -lt 1 ] || [ ! -f "$1" ]; then
    echo "error: no such file: ${1-}"
    exit 1
fi
awk '/[^[:space:]]/ { n++ } END { print n + 0 }' "$1"
