# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import hashlib
import os


def _files(top):
    """(relative path, size) of every regular non-link file under top."""
    pending = [("", os.fspath(top))]
    while pending:
        prefix, here = pending.pop()
        with os.scandir(here) as entries:
            for entry in entries:
                rel = prefix + entry.name
                if entry.is_symlink():
                    continue
                if entry.is_dir(follow_symlinks=False):
                    pending.append((rel + "/", entry.path))
                elif entry.is_file(follow_symlinks=False):
                    yield rel, entry.path, entry.stat(follow_symlinks=False).st_size


def _blake(path):
    h = hashlib.blake2b()
    with open(path, "rb") as fh:
        while True:
            chunk = fh.read(1 << 20)
            if not chunk:
                return h.digest()
            h.update(chunk)


def find_duplicates(folder):
    by_size = {}
    for rel, full, size in _files(folder):
        if size:
            by_size.setdefault(size, []).append((rel, full))
    out = []
    for same_size in by_size.values():
        if len(same_size) < 2:
            continue
        by_hash = {}
        for rel, full in same_size:
            by_hash.setdefault(_blake(full), []).append(rel)
        out.extend(sorted(g) for g in by_hash.values() if len(g) >= 2)
    out.sort(key=lambda g: g[0])
    return out
