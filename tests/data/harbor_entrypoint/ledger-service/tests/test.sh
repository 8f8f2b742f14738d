#!/bin/bash
# the service answers here too (the entrypoint ran in the verifier's container); the agent's session was not root,
# and could write in the folder the entrypoint made as root
want=$(python3 -c "import urllib.request; print(urllib.request.urlopen('http://ledger.internal/total.txt').read().decode().strip())")
got=$(cat /app/total.txt 2>/dev/null)
uid=$(cat /app/uid.txt 2>/dev/null)
seen=$(grep -c seen /app/cache/state 2>/dev/null)
echo "want $want, got ${got:-nothing}, the session's uid ${uid:-unknown}"
if [ -n "$want" ] && [ "$got" = "$want" ] && [ -n "$uid" ] && [ "$uid" != 0 ] \
   && [ "$seen" = 1 ]; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
