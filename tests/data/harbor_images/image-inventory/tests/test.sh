#!/bin/bash
# The expected value from the pristine stock list beside this script, the image's prices and its ENV; the files the
# build left in WORKDIR must still be there, the binary one byte for byte.
here=$(dirname "$0")
want=$(jq -n --arg r "$INVENTORY_REGION" --slurpfile s "$here/stock.json" --slurpfile p /etc/inventory/prices.json \
  '[$s[0].items[] | select(.region == $r) | .qty * $p[0][.sku]] | add')
got=$(tr -d '[:space:]' < /srv/shop/value.txt 2>/dev/null)
logo=$(sha256sum /srv/shop/logo.bin 2>/dev/null | cut -c1-16)
echo "region ${INVENTORY_REGION:-unset}: want ${want:-none}, got ${got:-nothing}; count $(cat /srv/shop/count.txt); logo $logo"
if [ -n "$want" ] && [ "$want" != null ] && [ "$got" = "$want" ] && [ "$(cat /srv/shop/count.txt)" = 3 ] \
   && [ "$logo" = 110009dcee21620b ]; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
