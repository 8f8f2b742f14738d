# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
echo '30 2 * * * /opt/jobs/cleanup.sh >> /tmp/cleanup-$(date +\%Y\%m\%d).log 2>&1' > cron.txt
