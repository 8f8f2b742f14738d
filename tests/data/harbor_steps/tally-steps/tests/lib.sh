# shared by every step's test.sh: the reward, once
reward() { echo "$1" > /logs/verifier/reward.txt; exit 0; }
