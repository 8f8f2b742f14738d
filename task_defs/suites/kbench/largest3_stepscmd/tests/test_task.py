# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import os

import kbtest as kb

# Every file setup.sh makes, with its length in bytes. disk.img is sparse (du sees ~4 KB), blob.bin is in a
# hidden folder, and data/db/dump.sql (511999 bytes) is one byte short of third place.
FILES = [
    ("data/.cache/blob.bin", 512000), ("data/.cache/index", 640), ("data/README.md", 1843),
    ("data/db/dump.sql", 511999), ("data/db/dump.sql.bak", 480000), ("data/docs/.draft.pdf", 99999),
    ("data/docs/manual.pdf", 198765), ("data/empty.txt", 0), ("data/images/cat.png", 262144),
    ("data/images/raw photo 01.raw", 700000), ("data/images/thumbs/cat_small.png", 4096),
    ("data/images/thumbs/dog_small.png", 4100), ("data/logs/app.log", 48213), ("data/logs/old/app.log.1", 150000),
    ("data/logs/old/app.log.2.gz", 9000), ("data/music/a/b/c/track 07.mp3", 350000), ("data/notes 2024.txt", 7311),
    ("data/src/main.c", 3120), ("data/src/util/helpers.c", 2980), ("data/src/util/helpers.h", 410),
    ("data/vm/disk.img", 1200000),
]
BY_SIZE = sorted(FILES, key=lambda f: -f[1])  # all sizes differ, so the order is unique
TOP3 = [p for p, _s in BY_SIZE[:3]]


def answer_lines():
    text = kb.read("answer.txt")
    return [ln.rstrip("\r") for ln in text.strip("\n").split("\n")]


def size_lines(name, step):
    kb.ok(kb.exists(name), "%s (the result of the %s step) is missing" % (name, step))
    rows = []
    for ln in kb.read(name).split("\n"):
        if not ln.strip():
            continue
        size, tab, path = ln.rstrip("\r").partition("\t")
        # the line starts with the size itself: no padding before it or between it and the tab
        kb.ok(tab == "\t" and size.isascii() and size.isdigit(), "%s lines must be SIZE<tab>PATH, got %r" % (name, ln))
        rows.append((path, int(size)))
    return rows


@kb.case
def the_three_largest_in_order():
    kb.eq(answer_lines(), TOP3, "answer.txt, largest first")


@kb.case
def answer_has_plain_paths():
    got = answer_lines()
    kb.eq(len(got), 3, "number of lines in answer.txt")
    for ln in got:
        kb.ok(ln == ln.strip() and not ln.startswith(("./", "/", "'", '"')) and "\t" not in ln,
              "each line must be a bare path starting with data/, got %r" % ln)


@kb.case
def sizes_file_lists_every_file():
    got = size_lines("sizes.txt", "first")
    kb.eq(sorted(got), sorted(FILES), "the (path, size) pairs in sizes.txt, order ignored")


@kb.case
def sorted_file_largest_first():
    kb.eq(size_lines("sorted.txt", "second"), BY_SIZE, "the (path, size) pairs in sorted.txt, in order")


@kb.case
def data_left_intact():
    for name, size in FILES:
        kb.ok(os.path.isfile(kb.path(name)), "%s must still exist" % name)
        kb.eq(os.stat(kb.path(name)).st_size, size, "size of %s" % name)
    count = sum(len(files) for _d, _s, files in os.walk(kb.path("data")))
    kb.eq(count, len(FILES), "number of files under data/")


kb.main()
