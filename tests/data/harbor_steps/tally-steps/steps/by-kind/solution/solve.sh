#!/bin/bash
cat > /app/tally.sh <<'SH'
#!/bin/bash
if [ $# -eq 0 ]; then wc -l < /app/items.txt; else awk -v k="$1" '$2 == k' /app/items.txt | wc -l; fi
SH
chmod +x /app/tally.sh
