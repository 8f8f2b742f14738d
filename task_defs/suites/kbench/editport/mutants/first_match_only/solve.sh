# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
sed -i '0,/port = 8080/s//port = 9090/' server.conf
