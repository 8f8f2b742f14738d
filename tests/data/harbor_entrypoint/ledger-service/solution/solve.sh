#!/bin/bash
python3 -c "import urllib.request; print(urllib.request.urlopen('http://ledger.internal/total.txt').read().decode().strip())" > /app/total.txt
id -u > /app/uid.txt
echo seen >> /app/cache/state
