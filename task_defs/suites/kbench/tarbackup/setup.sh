# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
# Adds to site/ what setup/ cannot hold: binary images, an empty file, an empty folder and an
# executable deploy script.
set -eu
mkdir -p site/img site/uploads
printf '\211PNG\r\n\032\n\000\000\000\rIHDR\000\000\000\001\000\000\000\001\010\006\000\000\000\037\025\304\211' > site/img/logo.png
head -c 3000 /dev/zero | tr '\0' '\252' >> site/img/logo.png
printf '\000\000\001\000\001\000\020\020\000\000\001\000\040\000\150\004\000\000\026\000\000\000' > site/img/favicon.ico
: > site/empty.txt
cat > site/deploy.sh <<'SH'
#!/bin/sh
# Copies the site to the web server.
rsync -av --delete ./ www@harbor-bakery.example:/var/www/html/
SH
chmod 755 site/deploy.sh
chmod 644 site/index.html
