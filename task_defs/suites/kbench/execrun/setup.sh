# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
# tool.sh must start without any execute bit, whatever mode the checkout gave it.
set -eu
chmod 644 tool.sh items.csv
