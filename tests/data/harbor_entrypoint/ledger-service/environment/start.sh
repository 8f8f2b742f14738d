#!/bin/bash
set -euo pipefail
echo "127.0.0.1 ledger.internal" >> /etc/hosts
mkdir -p /app/cache && { [ -e /app/cache/state ] || echo ready > /app/cache/state; }
cd /srv/ledger && python3 -m http.server 80 --bind 127.0.0.1 >/dev/null 2>&1 &
exec "$@"
