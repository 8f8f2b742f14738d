#!/bin/bash
cat > /app/client.py <<'PY'
import sys

import requests

print(requests.get(sys.argv[1], timeout=30).status_code)
PY
