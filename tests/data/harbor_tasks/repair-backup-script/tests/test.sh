#!/bin/bash
python3 /tests/check_backup.py && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt
