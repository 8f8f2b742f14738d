#!/bin/bash
# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
if [ -n "${GREET_NAME:-}" ]; then
    name=$GREET_NAME
else
    name=world
fi
cat <<GREETING
Hello, $name!
GREETING
