"""What one session holds, summed over its processes: memory, and disk that no folder walk can see.

Resident size per process misses most of what a session can pin: many processes each under a limit, pages shared
between them (counted once per process, or not at all), memfd and tmpfs files (shared memory is not resident in
anyone until mapped), files deleted while still open (gone from every folder, still on the disk). Here:

- a process's own charge is its proportional share (PSS) of anonymous memory and swap, read from
  /proc/PID/smaps_rollup; clean file pages (libraries, mapped inputs) are left out: the kernel can drop them.
  smaps_rollup walks every resident page (here ~35 ms for 200 MB), so a look first adds up the kernel's resident
  counters from /proc/PID/status, which can only be larger; only a session that bound puts over the limit is
  looked at page by page (a forked worker's shared pages would otherwise count once per process);
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
MAX_TMPFS_ENTRIES = 100_000  # entries of the session's tmpfs mounts one look walks at most
STATUS_FIELDS = (b"VmRSS", b"RssAnon", b"RssShmem", b"VmSwap")


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


def _status(pid: int) -> dict[bytes, int]:
    """Bytes per resident-memory counter of /proc/PID/status (empty when it cannot be read)."""
    try:
        with open(f"/proc/{pid}/status", "rb") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return {}
    out = {}
    for line in lines:
        name, _, rest = line.partition(b":")
        if name in STATUS_FIELDS:
            out[name] = int(rest.split()[0]) * 1024
    return out


def _bound(status: dict[bytes, int], unsized: bool) -> int:
    """At least the process's proportional share: what it has resident, shared pages counted whole."""
    if b"RssAnon" not in status:  # kernels before 4.5 do not split the resident size
        return status.get(b"VmRSS", 0) + status.get(b"VmSwap", 0)
    return status[b"RssAnon"] + status.get(b"VmSwap", 0) + (status.get(b"RssShmem", 0) if unsized else 0)


def _share(pid: int, unsized: bool, bound: int) -> int:
    """The process's proportional share; `bound` where smaps_rollup cannot be read."""
    smaps = _smaps(pid)
    if smaps is None:
        return bound
    if "Pss_Anon" not in smaps:  # kernels before 5.x give no split: the whole share, file pages included
        return smaps.get("Pss", 0) + smaps.get("SwapPss", 0)
    return smaps["Pss_Anon"] + smaps.get("SwapPss", 0) + (smaps.get("Pss_Shmem", 0) if unsized else 0)


# A maps line: range, perms, offset, device (hex major:minor), inode, then the path if any.
_MAP_LINE = re.compile(rb"^(\S+) \S+ \S+ ([0-9a-f]+):([0-9a-f]+) ([1-9][0-9]*) *(.*)$", re.M)


def _dev_pattern(devs: set[int]) -> re.Pattern:
    alternatives = b"|".join(re.escape(f"{os.major(d):02x}:{os.minor(d):02x}".encode()) for d in sorted(devs))
    return re.compile(rb"^\S+ \S+ \S+ (?:" + alternatives + rb") [1-9]|\(deleted\)$", re.M)


def _maps(pid: int, wanted: re.Pattern) -> list[tuple[str, int, int, bool]]:
    """(address range, st_dev, inode, deleted) of each file mapping on one of the devices `wanted` names, or whose
    file has no name left. A process maps hundreds of files; the few that matter are picked out by one regex."""
    try:
        with open(f"/proc/{pid}/maps", "rb") as fh:
            text = fh.read()
    except OSError:
        return []
    out = []
    for hit in wanted.finditer(text):
        start = text.rfind(b"\n", 0, hit.start()) + 1
        end = text.find(b"\n", hit.end())
        m = _MAP_LINE.match(text, start, len(text) if end < 0 else end)
        if m:
            dev = os.makedev(int(m.group(2), 16), int(m.group(3), 16))
            out.append((m.group(1).decode(), dev, int(m.group(4)), m.group(5).endswith(b" (deleted)")))
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


def _files_on(top: str, dev: int, sizes: dict[Key, int], budget: int) -> int:
    """Regular files under `top` on file system `dev` (not crossing into other mounts, not following links), at most
    `budget` entries; returns what is left of it (below 0: the walk stopped short)."""
    stack = [top]
    while stack and budget >= 0:
        folder = stack.pop()
        try:
            with os.scandir(folder) as it:
                for entry in it:
                    budget -= 1
                    if budget < 0:
                        break
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
    return budget


@dataclass
class SessionUse:
    """One look at a session. `own[pid]`: the memory only that process holds; `refs[pid]`: the shared-memory objects
    it maps or holds open; `sizes`: the bytes of every such object seen, whoever holds it (or nobody: `unheld`);
    `deleted_disk`: disk blocks of the session's files that are open or mapped but have no name left."""

    own: dict[int, int] = field(default_factory=dict)
    refs: dict[int, set[Key]] = field(default_factory=dict)
    sizes: dict[Key, int] = field(default_factory=dict)
    unheld: set[Key] = field(default_factory=set)  # named files in the session's tmpfs mounts
    deleted_disk: int = 0
    uncounted: str | None = None  # why the session's tmpfs files could not all be counted

    def charge(self, pid: int) -> int:
        """The memory ending this process alone could at most give back."""
        return self.own.get(pid, 0) + sum(self.sizes.get(k, 0) for k in self.refs.get(pid, ()))

    def total(self, without: set[int] = frozenset()) -> int:
        """The session's memory, less what the processes `without` hold alone."""
        keys = set(self.unheld)
        for pid, refs in self.refs.items():
            if pid not in without:
                keys |= refs
        return sum(v for pid, v in self.own.items() if pid not in without) + sum(self.sizes.get(k, 0) for k in keys)


def _tmpfs_of(pids, disk_devs: set[int], use: SessionUse | None = None) -> set[int]:
    """The devices of the tmpfs mounts the processes see (less the disk roots' own). With `use`, the regular files on
    them go into its sizes, from the session's own mount namespaces only: the host's tmpfs files are not its own."""
    own_ns = _mount_ns(os.getpid())
    devs, seen = set(), set()
    budget = MAX_TMPFS_ENTRIES
    for pid in pids:
        ns = _mount_ns(pid)
        if ns is None or ns in seen:
            continue
        seen.add(ns)
        for point, dev in _tmpfs_mounts(pid):
            if dev in disk_devs:
                continue
            devs.add(dev)
            if use is not None and ns != own_ns and budget >= 0:
                budget = _files_on(f"/proc/{pid}/root{point}", dev, use.sizes, budget)
                if budget < 0:
                    use.uncounted = f"more than {MAX_TMPFS_ENTRIES} entries in its tmpfs mounts"
    return devs


def _deleted_file_of(st: os.stat_result, owner: int | None) -> bool:
    return stat.S_ISREG(st.st_mode) and st.st_nlink == 0 and (owner is None or st.st_uid == owner)


def look(pids, disk_devs: set[int] = frozenset(), owner: int | None = None, limit: int | None = None) -> SessionUse:
    """What the processes `pids` (one session) hold, each process's files and mappings read once.

    `disk_devs`: the file systems of the session's disk roots; their files are disk, never memory. `owner`: the uid
    the session runs as; only its deleted files are its disk (a system library replaced while mapped is not).
    With a memory `limit`, shares are worked out only when the resident counters put the session or one process
    over it."""
    pids = list(pids)
    use = SessionUse()
    mem_devs = {SHM_DEV} | _tmpfs_of(pids, disk_devs, use)
    use.unheld = set(use.sizes)
    deleted: dict[Key, int] = {}
    unsized: dict[int, bool] = {}
    wanted = _dev_pattern(mem_devs)
    for pid in pids:
        status = _status(pid)
        refs: set[Key] = set()
        for st in _fd_stats(pid):
            if stat.S_ISREG(st.st_mode) and st.st_dev in mem_devs:
                refs.add((st.st_dev, st.st_ino))
                use.sizes[(st.st_dev, st.st_ino)] = st.st_blocks * 512
            elif _deleted_file_of(st, owner):
                deleted[(st.st_dev, st.st_ino)] = st.st_blocks * 512
        unsized[pid] = False
        for span, dev, ino, gone in _maps(pid, wanted):
            key = (dev, ino)
            if key in use.sizes:
                refs.add(key)
            elif (dev in mem_devs or gone) and key not in deleted:
                try:  # the mapped file itself; map_files needs CAP_SYS_ADMIN, so as root only
                    st = os.stat(f"/proc/{pid}/map_files/{span}")
                except OSError:
                    unsized[pid] = unsized[pid] or dev in mem_devs  # charged by what it maps of the object
                    continue
                if dev in mem_devs:
                    refs.add(key)
                    use.sizes[key] = st.st_blocks * 512
                elif _deleted_file_of(st, owner):
                    deleted[key] = st.st_blocks * 512
        use.own[pid] = _bound(status, unsized[pid])
        use.refs[pid] = refs
    use.deleted_disk = sum(deleted.values())
    if limit is None or use.total() > limit or any(use.charge(pid) > limit for pid in pids):
        for pid in pids:
            use.own[pid] = _share(pid, unsized[pid], use.own[pid])
    return use
