#!/bin/bash
tr -s ' \n' '\n\n' < /app/words.txt | grep . | sort | uniq -c | sort -k1,1nr -k2,2 | head -3 | awk '{print $2}' > /app/top.txt
