# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
# Builds data/: 20 files with exact byte sizes in nested folders (run in the work folder).
# The largest file is sparse (its length is far larger than the disk space it uses), one of the
# top three is hidden, one has a space in its name, and 4th place is one byte short of 3rd.
set -eu

# mk PATH SIZE CHAR: a file of exactly SIZE bytes, filled with CHAR
mk() {
    mkdir -p "$(dirname "$1")"
    head -c "$2" /dev/zero | tr '\0' "$3" > "$1"
}

mk "data/README.md"                          1843   r
mk "data/notes 2024.txt"                     7311   n
mk "data/empty.txt"                          0      e
mk "data/.cache/blob.bin"                    512000 b
mk "data/.cache/index"                       640    i
mk "data/images/raw photo 01.raw"            700000 p
mk "data/images/cat.png"                     262144 c
mk "data/images/thumbs/cat_small.png"        4096   s
mk "data/images/thumbs/dog_small.png"        4100   d
mk "data/db/dump.sql"                        511999 q
mk "data/db/dump.sql.bak"                    480000 k
mk "data/logs/app.log"                       48213  l
mk "data/logs/old/app.log.1"                 150000 o
mk "data/logs/old/app.log.2.gz"              9000   z
mk "data/src/main.c"                         3120   m
mk "data/src/util/helpers.c"                 2980   h
mk "data/src/util/helpers.h"                 410    H
mk "data/music/a/b/c/track 07.mp3"           350000 t
mk "data/docs/manual.pdf"                    198765 f
mk "data/docs/.draft.pdf"                    99999  D

# A VM disk image: a short header, then a hole up to 1200000 bytes (sparse: du shows almost nothing).
mkdir -p data/vm
printf 'QFI\373' > data/vm/disk.img
truncate -s 1200000 data/vm/disk.img
