# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import hashlib
import os


def _fingerprint(path):
    with open(path, "rb") as fh:
        return hashlib.md5(fh.read(1 << 16)).hexdigest()


def find_duplicates(folder):
    folder = os.fspath(folder)
    groups = {}
    for dirpath, _dirs, files in os.walk(folder):
        for name in files:
            full = os.path.join(dirpath, name)
            if os.path.islink(full) or not os.path.isfile(full):
                continue
            if os.path.getsize(full) == 0:
                continue
            rel = os.path.relpath(full, folder).replace(os.sep, "/")
            groups.setdefault(_fingerprint(full), []).append(rel)
    result = [sorted(g) for g in groups.values() if len(g) > 1]
    result.sort()
    return result
