# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
sed -i 's/port = 8080/port = 9090/g' server.conf
