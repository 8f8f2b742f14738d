#!/bin/bash
# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
set -euo pipefail
if [ -z "$GREET_NAME" ]; then
    GREET_NAME=world
fi
printf 'Hello, %s!\n' "$GREET_NAME"
