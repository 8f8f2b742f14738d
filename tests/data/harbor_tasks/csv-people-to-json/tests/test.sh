#!/bin/bash
python3 /tests/check_people.py
echo $(( $? == 0 ? 1 : 0 )) > /logs/verifier/reward.txt
