#!/bin/sh
# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
set -e
echo "deploying MYTODO and XTODOS placeholders are replaced by the CI job"
rsync -a build/ deploy@weather.example.org:/srv/weatherd/
