#!/bin/bash
# the total the image's own tool gives, against what the agent wrote (read with cat, whichever cat PATH finds)
[ "$(cat /app/total.txt 2>/dev/null)" = "$(ledger-total)" ] && echo 1 > /logs/verifier/reward.txt \
  || echo 0 > /logs/verifier/reward.txt
