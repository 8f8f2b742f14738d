# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import os
import shutil
import tempfile

import kbtest as kb


def build(tree, where=None):
    """A fresh temp folder holding tree: relative path -> size in bytes."""
    root = tempfile.mkdtemp(prefix="largest-", dir=where)
    for rel, size in tree.items():
        full = os.path.join(root, rel)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as fh:
            fh.write(b"x" * size)
    return root


def expected(tree):
    items = sorted(tree.items(), key=lambda kv: (-kv[1], kv[0].encode()))
    return ["%d %s" % (size, rel) for rel, size in items[:3]]


def lines_for(folder):
    rc, out, err = kb.run(["bash", "largest.sh", folder])
    kb.eq(rc, 0, "exit status for %s (stderr %r)" % (folder, err[-200:]))
    return out.splitlines()


@kb.case
def nested_files():
    tree = {"a.txt": 120, "logs/app.log": 900, "logs/old/app.1.log": 2500, "img/p.png": 1800, "z": 5,
            "logs/old/tiny": 1}
    kb.eq(lines_for(build(tree)), expected(tree), "output lines")


@kb.case
def directories_and_links_not_counted():
    # files are smaller than a directory entry's size (4096), so listing directories shows up
    tree = {"d1/d2/d3/f1": 300, "d1/f2": 200, "f3": 100, "f4": 50}
    root = build(tree)
    os.symlink(os.path.join(root, "d1"), os.path.join(root, "dirlink"))
    big = os.path.join(tempfile.mkdtemp(prefix="outside-"), "big")
    with open(big, "wb") as fh:
        fh.write(b"y" * 3000)
    os.symlink(big, os.path.join(root, "link_to_big"))
    kb.eq(lines_for(root), expected(tree), "output lines")


@kb.case
def fewer_than_three_and_none():
    tree = {"only/one": 10, "two": 20}
    kb.eq(lines_for(build(tree)), ["20 two", "10 only/one"], "two files")
    root = build({})
    os.makedirs(os.path.join(root, "empty", "sub"))
    kb.eq(lines_for(root), [], "no files at all")


@kb.case
def ties_sorted_by_path():
    tree = {"b": 700, "a/c": 700, "B": 700, "a b": 700, "big": 701}
    kb.eq(lines_for(build(tree)), ["701 big", "700 B", "700 a b"], "equal sizes in byte order of path")


@kb.case
def spaces_hidden_and_zero_sizes():
    tree = {"my docs/report final.txt": 4000, ".hidden": 3500, "sub/.cache/blob": 10, "empty": 0}
    kb.eq(lines_for(build(tree)), expected(tree), "output lines")
    tree = {"e1": 0, "e2": 0}
    kb.eq(lines_for(build(tree)), ["0 e1", "0 e2"], "empty files still count")


@kb.case
def relative_folder_and_trailing_slash():
    tree = {"x/y/deep": 33, "top": 44, "mid/m": 22, "mid/n": 11}
    root = build(tree)
    kb.eq(lines_for(root + "/"), expected(tree), "FOLDER with a trailing slash")
    inside = build(tree, where=kb.path("."))  # a folder inside the work folder, passed by its bare name
    try:
        name = os.path.basename(inside)
        kb.eq(lines_for(name), expected(tree), "FOLDER as the relative path %s" % name)
        kb.eq(lines_for("./" + name + "/"), expected(tree), "FOLDER as the relative path ./%s/" % name)
    finally:
        shutil.rmtree(inside, ignore_errors=True)


@kb.case
def not_a_directory():
    missing = os.path.join(tempfile.mkdtemp(prefix="largest-"), "nope")
    rc, out, err = kb.run(["bash", "largest.sh", missing])
    kb.eq(rc, 1, "exit status for a missing folder")
    kb.eq(out, "", "stdout for a missing folder")
    kb.ok(err.strip() != "", "an error message on stderr for a missing folder")
    plain = os.path.join(build({"f": 3}), "f")
    rc, out, err = kb.run(["bash", "largest.sh", plain])
    kb.eq(rc, 1, "exit status when FOLDER is a regular file")
    kb.eq(out, "", "stdout when FOLDER is a regular file")


kb.main()
