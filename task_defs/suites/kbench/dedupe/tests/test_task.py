# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import os
import pathlib
import shutil
import tempfile

import kbtest as kb

m = kb.load("dedupe.py")
find = kb.func(m, "find_duplicates")


def build(tree):
    """A fresh temp folder holding tree: relative path -> bytes."""
    root = tempfile.mkdtemp(prefix="dedupe-")
    for rel, data in tree.items():
        full = os.path.join(root, rel)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as fh:
            fh.write(data)
    return root


@kb.case
def one_pair():
    root = build({"a.txt": b"hello\n", "b.txt": b"hello\n", "c.txt": b"world\n"})
    kb.eq(find(root), [["a.txt", "b.txt"]], "find_duplicates")


@kb.case
def recursive_groups_sorted():
    root = build({
        "z.bin": b"\x00\x01\x02" * 100,
        "sub/x.bin": b"\x00\x01\x02" * 100,
        "sub/deeper/y.bin": b"\x00\x01\x02" * 100,
        "m1": b"same text",
        "n/m2": b"same text",
        "n/unique": b"only once",
        "b/q": b"pair two",
        "a/q": b"pair two",
    })
    want = [["a/q", "b/q"], ["m1", "n/m2"], ["sub/deeper/y.bin", "sub/x.bin", "z.bin"]]
    kb.eq(find(root), want, "find_duplicates")


@kb.case
def plain_string_order():
    # "-" and "." sort below "/", and upper case below lower case: plain string order, not folder by folder
    root = build({
        "a/b": b"first", "a.txt": b"first", "a-z": b"first", "B": b"first",
        "x/y/z": b"second", "x.y": b"second",
        "C/d": b"third", "c": b"third",
    })
    want = [["B", "a-z", "a.txt", "a/b"], ["C/d", "c"], ["x.y", "x/y/z"]]
    kb.eq(find(root), want, "find_duplicates")


@kb.case
def content_not_size_or_name():
    root = build({
        "one": b"abcdefgh",
        "two": b"abcdefgX",
        "three": b"Xbcdefgh",
        "dir1/same.txt": b"first",
        "dir2/same.txt": b"other",
    })
    kb.eq(find(root), [], "same sizes / same names but different content")


@kb.case
def empty_files_ignored():
    root = build({"e1": b"", "e2": b"", "d/e3": b"", "x": b"1", "y": b"1"})
    kb.eq(find(root), [["x", "y"]], "find_duplicates with empty files")
    empty = tempfile.mkdtemp(prefix="dedupe-empty-")
    kb.eq(find(empty), [], "an empty folder")


@kb.case
def hidden_files_and_path_objects():
    root = build({".config": b"data", "a/.hidden": b"data", "visible": b"data", "c": b"x"})
    want = [[".config", "a/.hidden", "visible"]]
    kb.eq(find(root), want, "find_duplicates(str)")
    kb.eq(find(pathlib.Path(root)), want, "find_duplicates(pathlib.Path)")


@kb.case
def folder_with_trailing_slash_or_relative():
    tree = {"k/one": b"twin", "two": b"twin", "x": b"alone"}
    want = [["k/one", "two"]]
    root = build(tree)
    kb.eq(find(root + "/"), want, "find_duplicates(folder + '/')")
    inside = tempfile.mkdtemp(prefix="dedupe-rel-", dir=kb.path("."))  # in the work folder, passed by name
    try:
        for rel, data in tree.items():
            os.makedirs(os.path.dirname(os.path.join(inside, rel)), exist_ok=True)
            with open(os.path.join(inside, rel), "wb") as fh:
                fh.write(data)
        name = os.path.basename(inside)
        kb.eq(find(name), want, "find_duplicates(%r), a relative path" % name)
        kb.eq(find("./" + name + "/"), want, "find_duplicates(%r)" % ("./" + name + "/"))
    finally:
        shutil.rmtree(inside, ignore_errors=True)


@kb.case
def symlinks_skipped():
    root = build({"real.txt": b"linked content", "other/copy.txt": b"linked content", "solo": b"solo"})
    os.symlink(os.path.join(root, "solo"), os.path.join(root, "link_to_solo"))
    os.symlink(os.path.join(root, "other"), os.path.join(root, "dirlink"))
    os.symlink("real.txt", os.path.join(root, "rel_link"))
    kb.eq(find(root), [["other/copy.txt", "real.txt"]], "find_duplicates with symlinks present")


@kb.case
def larger_files():
    big = os.urandom(1 << 20)
    root = build({"big1": big, "nested/big2": big, "big3": big[:-1] + bytes([big[-1] ^ 1])})
    kb.eq(find(root), [["big1", "nested/big2"]], "find_duplicates on 1 MiB files")


kb.main()
