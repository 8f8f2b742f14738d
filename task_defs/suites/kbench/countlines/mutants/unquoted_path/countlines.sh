#!/usr/bin/env bash
# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
if [ $# -lt 1 ]; then
    echo "usage: countlines.sh FILE" >&2
    exit 1
fi
if [ ! -e $1 ]; then
    echo "countlines.sh: $1: no such file" >&2
    exit 1
fi
awk '/[^[:space:]]/ { n++ } END { print n + 0 }' $1
