#!/bin/bash
# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
name=$(printf '%s' "${GREET_NAME:-}" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//')
[ -z "$name" ] && name=world
printf 'Hello, %s!\n' "$name"
