"""An image's ENTRYPOINT, run as Harbor runs it: first, as root, before the session's own command.

Harbor's tasks use it to start services and write system files (/etc/hosts entries, a server on port 80) before
the agent's first command. A session of such an image starts as root with the image's ENTRYPOINT and, as its
arguments, a wrapper: it waits until what the entrypoint left running has settled, gives the session's uid what the
entrypoint made in the work folder (root's, the agent's user, in Harbor's container), then drops to that uid
(setpriv, no capabilities, no new privileges) and runs the session's command. The root part keeps only the
capabilities an entrypoint needs to prepare the container (set ids, own or open any file, chown); the system stays
read-only, except a private /etc/hosts (root's to write) and /run (a small tmpfs). The entrypoint runs again in
every session, the judge's too (Harbor runs it once a trial, in the one container the verifier shares), so it must
never run a file the agent can write: refused at import (task_defs/importers/harbor.py) and here; and what it writes
into the work folder is written again before the verifier.
"""

from __future__ import annotations

from pathlib import Path

# Settled: no process of the container besides its init and the wrapper is running or in disk wait, and their CPU
# times are unchanged over three samples 50 ms apart (a server started in the background is waiting in accept).
# A loaded machine keeps a starting process runnable, so it waits longer rather than going on early; SETTLE_S is
# the safety stop after which the command runs anyway. The walk that gives the session's uid what root made in the
# work folder is iterative (a tree thousands deep is no error) and stops after 200,000 entries.
SETTLE = r"""
import os, sys, time
me = os.getpid()
def others():
    out = {}
    for pid in os.listdir("/proc"):
        if pid.isdigit() and int(pid) not in (1, me):
            try:
                f = open("/proc/%s/stat" % pid).read().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            out[pid] = (f[0], f[11], f[12])
    return out
deadline, last, calm = time.monotonic() + float(sys.argv[1]), None, 0
while time.monotonic() < deadline and calm < 3:
    now = others()
    calm = calm + 1 if now == last and all(s[0] not in "RD" for s in now.values()) else 0
    last = now
    time.sleep(0.05)
uid, todo, seen = int(sys.argv[2]), ["."], 0
while todo and seen < 200000:
    try:
        entries = list(os.scandir(todo.pop()))
    except OSError:
        continue
    for e in entries:
        seen += 1
        try:
            if e.stat(follow_symlinks=False).st_uid == 0:
                os.chown(e.path, uid, uid, follow_symlinks=False)
            if e.is_dir(follow_symlinks=False):
                todo.append(e.path)
        except OSError:
            pass
os.execv(sys.argv[3], sys.argv[3:])
"""
SETTLE_S = 20.0
CAPABILITIES = ["SETUID", "SETGID", "CHOWN", "DAC_OVERRIDE", "FOWNER"]
TMPFS = {"/run": "rw,nosuid,nodev,size=16m,mode=755"}
HOSTS = "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n127.0.1.1\tkbench\n"


def under(path: str, places: list[str]) -> bool:
    """`path` is one of `places` or lies under one of them."""
    return any(path == w or path.startswith(w.rstrip("/") + "/") for w in places)


def runs_writable(entrypoint: list[str], writable: list[str]) -> str | None:
    """The first word of the ENTRYPOINT (a `sh -c` script's words too) that names a place the session can write, or
    None."""
    for word in (w.strip("'\";&|()") for part in entrypoint for w in part.split()):
        if under(word, writable):
            return word
    return None


def command(cmd: list[str], uid: int) -> list[str]:
    """The arguments the entrypoint is given: settle, give `uid` what the entrypoint made in the work folder (never
    through a link), drop to `uid`, run `cmd` (the image's own python3 and setpriv, which the judge needs anyway)."""
    return ["/usr/bin/python3", "-I", "-S", "-c", SETTLE, str(SETTLE_S), str(uid), "/usr/bin/setpriv", f"--reuid={uid}",
            f"--regid={uid}", "--clear-groups", "--inh-caps=-all", "--no-new-privs", "--", *cmd]


def hosts_file(scratch: Path) -> Path:
    """A private /etc/hosts for the session, root's (the entrypoint may add names), in its scratch folder."""
    path = scratch / "hosts"
    path.write_text(HOSTS, encoding="ascii")
    path.chmod(0o644)
    return path
