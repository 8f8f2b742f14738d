#!/bin/bash
python3 -c 'import ast, requests; ast.parse(open("/app/client.py").read())' \
  && grep -q "import requests" /app/client.py \
  && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt
