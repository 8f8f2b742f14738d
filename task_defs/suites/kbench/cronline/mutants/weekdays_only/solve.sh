# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
echo '30 2 * * 1-5 /opt/jobs/cleanup.sh' > cron.txt
