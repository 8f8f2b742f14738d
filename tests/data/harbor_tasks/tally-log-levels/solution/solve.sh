#!/bin/bash
cd /app
awk 'NF { print $3 }' service.log | sort | uniq -c | sort -k1,1nr -k2,2 | awk '{ print $2, $1 }' > levels.txt
