# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
awk '/^\[/ { section = $0 } section == "[server]" && $0 == "port = 8080" { $0 = "port = 9090" } { print }' server.conf > server.conf.new
cat server.conf.new > server.conf
rm server.conf.new
