# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
node -e 'console.log(require("./settings.json").database.replicas[1].port)' > answer.txt
