# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import os

import kbtest as kb

# Largest first. disk.img is sparse (du sees ~4 KB), blob.bin is in a hidden folder,
# and data/db/dump.sql (511999 bytes) is one byte short of third place.
TOP3 = ["data/vm/disk.img", "data/images/raw photo 01.raw", "data/.cache/blob.bin"]
SIZES = {
    "data/vm/disk.img": 1200000,
    "data/images/raw photo 01.raw": 700000,
    "data/.cache/blob.bin": 512000,
    "data/db/dump.sql": 511999,
    "data/db/dump.sql.bak": 480000,
    "data/music/a/b/c/track 07.mp3": 350000,
}


def lines():
    text = kb.read("answer.txt")
    return [ln.rstrip("\r") for ln in text.strip("\n").split("\n")]


@kb.case
def largest_file_first():
    got = lines()
    kb.eq(got[0] if got else None, TOP3[0], "first line of answer.txt (the largest file)")


@kb.case
def the_three_largest():
    kb.eq(sorted(lines()), sorted(TOP3), "the set of paths in answer.txt")


@kb.case
def largest_first_order():
    kb.eq(lines(), TOP3, "answer.txt, largest first")


@kb.case
def exactly_three_plain_paths():
    got = lines()
    kb.eq(len(got), 3, "number of lines in answer.txt")
    for ln in got:
        kb.ok(ln == ln.strip() and ln.startswith("data/"),
              "each line must be a bare path starting with data/, got %r" % ln)


@kb.case
def data_left_intact():
    for name, size in SIZES.items():
        kb.ok(os.path.isfile(kb.path(name)), "%s must still exist" % name)
        kb.eq(os.stat(kb.path(name)).st_size, size, "size of %s" % name)
    count = sum(len(files) for _d, _s, files in os.walk(kb.path("data")))
    kb.eq(count, 21, "number of files under data/")


kb.main()
