# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import os

import kbtest as kb


def files_under(root):
    out = {}
    for dirpath, _dirs, names in os.walk(root):
        for name in names:
            full = os.path.join(dirpath, name)
            out[os.path.relpath(full, root)] = full
    return out


ORIGINAL_BYTES = {rel: kb.data("pristine_docs/" + rel) for rel in kb.data_files("pristine_docs")}
ORIGINAL = sorted(ORIGINAL_BYTES)
TXT = sorted(r for r in ORIGINAL if r.endswith(".txt"))
OTHER = sorted(r for r in ORIGINAL if not r.endswith(".txt"))
TRICKY = ["guide/my notes.txt", ".drafts/wip.txt", "legacy/latin1.txt", "legacy/dos.txt", "legacy/noeol.txt"]


def original(rel):
    return ORIGINAL_BYTES[rel]


def current(rel):
    p = kb.path(os.path.join("docs", rel))
    kb.ok(os.path.isfile(p), "docs/%s is missing or not a regular file" % rel)
    with open(p, "rb") as fh:
        return fh.read()


def check_txt(rel):
    want = original(rel).replace(b"foo", b"bar")
    got = current(rel)
    if got != want:
        raise AssertionError("docs/%s: expected %r, got %r" % (rel, want[:300], got[:300]))


@kb.case
def same_set_of_files():
    got = set(files_under(kb.path("docs")))
    want = set(ORIGINAL)
    kb.eq(sorted(got - want), [], "files added under docs/")
    kb.eq(sorted(want - got), [], "files missing under docs/")


@kb.case
def plain_txt_files_replaced():
    for rel in TXT:
        if rel not in TRICKY:
            check_txt(rel)


@kb.case
def tricky_txt_files_replaced():
    # a space in the name, a hidden folder, Latin-1 bytes, CRLF line ends, no final newline
    for rel in TRICKY:
        check_txt(rel)


@kb.case
def other_files_untouched():
    for rel in OTHER:
        if current(rel) != original(rel):
            raise AssertionError("docs/%s must stay byte-identical but was changed" % rel)


kb.main()
