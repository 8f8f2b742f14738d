#!/usr/bin/env bash
# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
# Sum the integer arguments; any non-integer argument is an error (exit 2) before anything is printed.
sum=0
for arg in "$@"; do
    if [[ ! $arg =~ ^-?[0-9]+$ ]]; then
        echo "sumargs.sh: not an integer: '$arg'" >&2
        exit 2
    fi
    # 10# forces base ten, so leading zeros are not read as octal
    if [[ $arg == -* ]]; then
        sum=$(( sum - 10#${arg#-} ))
    else
        sum=$(( sum + 10#$arg ))
    fi
done
echo "$sum"
