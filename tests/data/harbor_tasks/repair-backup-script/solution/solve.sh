#!/bin/bash
cat > /app/backup.sh <<'SH'
#!/bin/bash
# copy the .txt files of data/ into archive/
cd "$(dirname "$0")" || exit 1
mkdir -p archive
for f in data/*.txt; do
  [ -e "$f" ] || continue
  cp -- "$f" archive/
done
SH
