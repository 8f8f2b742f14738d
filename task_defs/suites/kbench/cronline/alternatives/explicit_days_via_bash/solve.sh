# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
cat > cron.txt <<'CRON'
# nightly cleanup at 02:30
30 02 * * 0-6 /bin/bash /opt/jobs/cleanup.sh
CRON
