# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import hashlib
import os

import kbtest as kb

# Every image file was written by setup.sh with the content image_bytes(<its original path>).
RENAMED = {
    "photos/IMG_0001.jpeg": "photos/IMG_0001.jpg",
    "photos/IMG_0002.jpeg": "photos/IMG_0002.jpg",
    "photos/summer trip.jpeg": "photos/summer trip.jpg",
    "photos/scan.jpeg.jpeg": "photos/scan.jpeg.jpg",
    "photos/2023/june/beach.jpeg": "photos/2023/june/beach.jpg",
    "photos/2023/dec/tree.jpeg": "photos/2023/dec/tree.jpg",
    "photos/raw/DSC 0042.jpeg": "photos/raw/DSC 0042.jpg",
    "photos/album.jpeg/cover.jpeg": "photos/album.jpeg/cover.jpg",
    "photos/.cover.jpeg": "photos/.cover.jpg",
    "photos/.thumbs/IMG_0001.jpeg": "photos/.thumbs/IMG_0001.jpg",
}
HIDDEN = ["photos/.cover.jpeg", "photos/.thumbs/IMG_0001.jpeg"]
KEPT_IMAGES = [
    "photos/2023/june/sunset.jpg",
    "photos/2023/dec/party.JPEG",
    "photos/2023/dec/snow.Jpeg",
    "photos/album.jpeg/back.png",
    "photos/backup.jpeg.bak",
    "photos/jpeg",
]
KEPT_TEXT = {
    "photos/jpeg_settings.ini": "8ba8bcfbbf8ab5a91b2c5d1ccd8ef715a9bfb416b0d398a462531cc85ee8b78e",
    "photos/list.jpeg.txt": "6829359f8d412dc4eca0054b91dd61ae40bf7e755e7b819b2fbdbdfd3831be2f",
    "photos/notes.txt": "060b0cd874d95e9ce95fe043c5ea44c9e2eb9bce253fc70fae8aa9a7e1c8361c",
}


def image_bytes(original):
    return b"\xff\xd8\xff\xe0\x00\x10JFIF\x00fake image: " + original.encode() + b"\xff\xd9"


def content(name):
    with open(kb.path(name), "rb") as fh:
        return fh.read()


def all_files():
    out = set()
    for dirpath, _dirs, names in os.walk(kb.path("photos")):
        for n in names:
            out.add(os.path.relpath(os.path.join(dirpath, n), kb.path(".")))
    return out


@kb.case
def jpeg_files_now_end_in_jpg():
    missing = [new for new in RENAMED.values() if not os.path.isfile(kb.path(new))]
    kb.ok(not missing, "expected renamed files are missing: %r" % missing)


@kb.case
def hidden_ones_renamed_too():
    for old in HIDDEN:
        kb.ok(os.path.isfile(kb.path(RENAMED[old])) and not os.path.lexists(kb.path(old)),
              "%s must have become %s" % (old, RENAMED[old]))


@kb.case
def no_lowercase_jpeg_file_left():
    left = sorted(p for p in all_files() if p.endswith(".jpeg"))
    kb.ok(not left, "files still ending in .jpeg: %r" % left)


@kb.case
def renamed_contents_unchanged():
    for old, new in RENAMED.items():
        if os.path.isfile(kb.path(new)):
            kb.ok(content(new) == image_bytes(old), "%s must hold exactly the bytes of %s" % (new, old))


@kb.case
def other_files_untouched():
    for name in KEPT_IMAGES:
        kb.ok(os.path.isfile(kb.path(name)), "%s must keep its name" % name)
        kb.ok(content(name) == image_bytes(name), "%s must keep its content" % name)
    for name, digest in KEPT_TEXT.items():
        kb.ok(os.path.isfile(kb.path(name)), "%s must keep its name" % name)
        kb.eq(hashlib.sha256(content(name)).hexdigest(), digest, "content of %s" % name)


@kb.case
def folders_keep_their_names():
    for folder in ("photos/album.jpeg", "photos/.thumbs", "photos/2023/june", "photos/2023/dec", "photos/raw"):
        kb.ok(os.path.isdir(kb.path(folder)), "folder %s must still exist under that name" % folder)
    kb.ok(not os.path.lexists(kb.path("photos/album.jpg")), "the folder album.jpeg must not be renamed")


@kb.case
def nothing_added_or_removed():
    want = set(RENAMED.values()) | set(KEPT_IMAGES) | set(KEPT_TEXT)
    got = all_files()
    kb.ok(got == want, "files under photos/ differ: extra %r, missing %r" % (sorted(got - want), sorted(want - got)))


kb.main()
