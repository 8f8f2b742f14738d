#!/bin/bash
source /tests/lib.sh
[ -x /app/tally.sh ] || reward 0
[ "$(/app/tally.sh)" = "$(wc -l < /app/items.txt)" ] && reward 1
reward 0
