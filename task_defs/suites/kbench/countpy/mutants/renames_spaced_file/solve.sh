# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
mv "src/app/models/order item.py" src/app/models/order_item.py
cat $(find src -type f -name "*.py") | wc -l > answer.txt
