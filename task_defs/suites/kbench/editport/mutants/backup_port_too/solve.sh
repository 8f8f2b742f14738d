# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
sed -i '/^\[server\]$/,/^\[/ s/port = 8080/port = 9090/' server.conf
