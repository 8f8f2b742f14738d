"""What one session holds, summed over its processes: memory, and disk that no folder walk can see.

Resident size per process misses most of what a session can pin: many processes each under a limit, pages shared
between them (counted once per process, or not at all), memfd and tmpfs files (shared memory is not resident in
anyone until mapped), files deleted while still open (gone from every folder, still on the disk). Here:

- a process's own charge is its proportional share (PSS) of anonymous memory and swap, read from
  /proc/PID/smaps_rollup; clean file pages (libraries, mapped inputs) are left out: the kernel can drop them;
- every shared-memory object (a memfd, a shared anonymous mapping, SysV shm, a file on a tmpfs the session can
  write) is one inode, charged its allocated size once however many processes map or hold it, and also when no
  process does (files left in the sandbox's own tmpfs mounts, found by walking them through /proc/PID/root);
- a regular file that is open or mapped but has no name left counts as disk, once per inode.

A file on the file system of a disk root (the work folder, HOME, /tmp) is the disk watchdog's, never memory."""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field

Key = tuple[int, int]  # (st_dev, st_ino): one inode
SMAPS_FIELDS = ("Pss", "Pss_Anon", "Pss_Shmem", "SwapPss")


def _memfd_dev() -> int:
    # memfds, shared anonymous mappings and SysV segments all live on the kernel's internal shm mount
    fd = os.memfd_create("kbench-probe", os.MFD_CLOEXEC)
    try:
        return os.fstat(fd).st_dev
    finally:
        os.close(fd)


SHM_DEV = _memfd_dev()


def _smaps(pid: int) -> dict[str, int] | None:
    """Bytes per field of /proc/PID/smaps_rollup, or None when it cannot be read."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as fh:
            text = fh.read().decode("ascii", "replace")
    except OSError:
        return None
    out = {}
    for line in text.splitlines()[1:]:
        name, _, rest = line.partition(":")
        if name in SMAPS_FIELDS:
            out[name] = int(rest.split()[0]) * 1024
    return out


def _statm_rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm", "rb") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, IndexError, ValueError):
        return 0


def _maps(pid: int) -> list[tuple[str, int, int, bool]]:
    """(address range, st_dev, inode, deleted) of every file-backed mapping."""
    out = []
    try:
        with open(f"/proc/{pid}/maps", "rb") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return out
    for line in lines:
        parts = line.split(None, 5)
        if len(parts) < 5 or parts[4] == b"0":
            continue
        major, _, minor = parts[3].partition(b":")
        dev = os.makedev(int(major, 16), int(minor, 16))
        deleted = len(parts) == 6 and parts[5].endswith(b" (deleted)")
        out.append((parts[0].decode(), dev, int(parts[4]), deleted))
    return out


def _fd_stats(pid: int) -> list[os.stat_result]:
    """What the process's descriptors point at (the file itself, named or not)."""
    out = []
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return out
    for fd in fds:
        try:
            out.append(os.stat(f"/proc/{pid}/fd/{fd}"))
        except OSError:
            continue
    return out


def _mount_ns(pid: int) -> int | None:
    try:
        return os.stat(f"/proc/{pid}/ns/mnt").st_ino
    except OSError:
        return None


def _unescape(path: str) -> str:
    # mountinfo writes space, tab, newline and backslash as \ooo
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), path)


def _tmpfs_mounts(pid: int) -> list[tuple[str, int]]:
    """(mount point, st_dev) of each tmpfs mounted in the process's mount namespace."""
    out = []
    try:
        with open(f"/proc/{pid}/mountinfo", encoding="utf-8", errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return out
    for line in lines:
        left, sep, right = line.partition(" - ")
        fields = left.split()
        if not sep or len(fields) < 5 or not right.startswith("tmpfs "):
            continue
        major, _, minor = fields[2].partition(":")
        out.append((_unescape(fields[4]), os.makedev(int(major), int(minor))))
    return out


def _files_on(top: str, dev: int, sizes: dict[Key, int]) -> None:
    """Regular files under `top` on file system `dev` (not crossing into other mounts, not following links)."""
    stack = [top]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as it:
                for entry in it:
                    try:
                        st = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    if st.st_dev != dev:
                        continue
                    if stat.S_ISDIR(st.st_mode):
                        stack.append(entry.path)
                    elif stat.S_ISREG(st.st_mode):
                        sizes[(st.st_dev, st.st_ino)] = st.st_blocks * 512
        except OSError:
            continue


@dataclass
class MemoryUse:
    """One look at a session's memory. `own[pid]`: what only that process holds; `refs[pid]`: the shared-memory
    objects it maps or holds open; `sizes`: the bytes of every object seen, whoever holds it (or nobody)."""

    own: dict[int, int] = field(default_factory=dict)
    refs: dict[int, set[Key]] = field(default_factory=dict)
    sizes: dict[Key, int] = field(default_factory=dict)
    unheld: set[Key] = field(default_factory=set)  # named files in the session's tmpfs mounts

    def charge(self, pid: int) -> int:
        """What ending this process alone could at most give back."""
        return self.own.get(pid, 0) + sum(self.sizes.get(k, 0) for k in self.refs.get(pid, ()))

    def total(self, without: set[int] = frozenset()) -> int:
        keys = set(self.unheld)
        for pid, refs in self.refs.items():
            if pid not in without:
                keys |= refs
        return sum(v for pid, v in self.own.items() if pid not in without) + sum(self.sizes.get(k, 0) for k in keys)


def _tmpfs_of(pids, disk_devs: set[int], sizes: dict[Key, int] | None = None) -> set[int]:
    """The devices of the tmpfs mounts the processes see (less the disk roots' own). With `sizes`, the regular files
    on them go there, from the session's own mount namespaces only: the host's tmpfs files are not its own."""
    own_ns = _mount_ns(os.getpid())
    devs, seen = set(), set()
    for pid in pids:
        ns = _mount_ns(pid)
        if ns is None or ns in seen:
            continue
        seen.add(ns)
        for point, dev in _tmpfs_mounts(pid):
            if dev in disk_devs:
                continue
            devs.add(dev)
            if sizes is not None and ns != own_ns:
                _files_on(f"/proc/{pid}/root{point}", dev, sizes)
    return devs


def memory_use(pids, disk_devs: set[int] = frozenset()) -> MemoryUse:
    """The memory of the processes `pids` (one session), with shared memory counted once; `disk_devs`: the file
    systems of the session's disk roots, whose files are charged as disk instead."""
    pids = list(pids)
    use = MemoryUse()
    mem_devs = {SHM_DEV} | _tmpfs_of(pids, disk_devs, use.sizes)
    use.unheld = set(use.sizes)
    for pid in pids:
        smaps = _smaps(pid)
        refs: set[Key] = set()
        for st in _fd_stats(pid):
            if stat.S_ISREG(st.st_mode) and st.st_dev in mem_devs:
                key = (st.st_dev, st.st_ino)
                refs.add(key)
                use.sizes[key] = st.st_blocks * 512
        unsized_mapping = False
        for span, dev, ino, _deleted in _maps(pid):
            if dev not in mem_devs:
                continue
            key = (dev, ino)
            if key not in use.sizes:
                try:  # the mapped object itself; map_files needs CAP_SYS_ADMIN, so as root only
                    use.sizes[key] = os.stat(f"/proc/{pid}/map_files/{span}").st_blocks * 512
                except OSError:
                    unsized_mapping = True
                    continue
            refs.add(key)
        if smaps is None:
            use.own[pid] = _statm_rss(pid)
        elif "Pss_Anon" in smaps:
            # an object that could not be sized is charged by what this process maps of it
            shmem = smaps.get("Pss_Shmem", 0) if unsized_mapping else 0
            use.own[pid] = smaps["Pss_Anon"] + smaps.get("SwapPss", 0) + shmem
        else:  # older kernels give no split: the whole share, file pages included
            use.own[pid] = smaps.get("Pss", 0) + smaps.get("SwapPss", 0)
        use.refs[pid] = refs
    return use


def unlinked_bytes(pids, owner: int | None = None, disk_devs: set[int] = frozenset()) -> int:
    """Disk blocks of regular files the processes hold open or mapped after every name of them was removed, once
    per inode. Only files of `owner` (the session's uid) count: a system library replaced while mapped is not
    the session's. Files on shared memory or a tmpfs are memory (memory_use), not disk."""
    pids = list(pids)
    sizes: dict[Key, int] = {}
    skip = {SHM_DEV} | _tmpfs_of(pids, disk_devs)
    for pid in pids:
        stats = _fd_stats(pid)
        for span, dev, _ino, deleted in _maps(pid):
            if deleted and dev not in skip:
                try:
                    stats.append(os.stat(f"/proc/{pid}/map_files/{span}"))
                except OSError:
                    continue
        for st in stats:
            if (stat.S_ISREG(st.st_mode) and st.st_nlink == 0 and st.st_dev not in skip
                    and (owner is None or st.st_uid == owner)):
                sizes[(st.st_dev, st.st_ino)] = st.st_blocks * 512
    return sum(sizes.values())
