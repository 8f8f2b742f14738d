# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import hashlib
import os


def _digest(path):
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 16), b""):
            h.update(block)
    return h.digest()


def _parts(rel):
    return rel.split("/")


def find_duplicates(folder):
    folder = os.fspath(folder)
    by_key = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in filenames:
            full = os.path.join(dirpath, name)
            if os.path.islink(full) or not os.path.isfile(full):
                continue
            if os.path.getsize(full) == 0:
                continue
            rel = os.path.relpath(full, folder).replace(os.sep, "/")
            by_key.setdefault(_digest(full), []).append(rel)
    groups = [sorted(paths, key=_parts) for paths in by_key.values() if len(paths) >= 2]
    return sorted(groups, key=lambda g: _parts(g[0]))
