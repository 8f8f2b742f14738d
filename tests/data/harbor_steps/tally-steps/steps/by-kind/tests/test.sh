#!/bin/bash
source /tests/lib.sh
want=$(awk -v k="$KIND" '$2 == k' /app/items.txt | wc -l)
[ "$want" = 3 ] || reward 0
[ "$(/app/tally.sh "$KIND")" = "$want" ] && [ "$(/app/tally.sh)" = 4 ] && reward 1
reward 0
