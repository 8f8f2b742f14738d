"""Dagster's storage for the local deployment: a PostgreSQL cluster in a folder the project owns.

Debian's binaries refuse to run as root, so the cluster belongs to the `postgres` account: its folder is chowned
to it and every pg_* command drops to it. The server listens on 127.0.0.1 only (the run containers share the
host's network) and on a socket in its own folder, never in /run/postgresql. Every connection needs the password,
generated once and kept in a 0600 file beside the cluster: initdb reads it from a copy only the owner may open, and
Dagster from an environment variable, never from a command line or a log.
"""

from __future__ import annotations

import os
import pwd
import secrets
import shlex
import subprocess
from pathlib import Path

PG_BIN = Path(os.environ.get("KBENCH_PG_BIN", "/usr/lib/postgresql/15/bin"))
OWNER = "postgres"
USER = "dagster"  # the cluster's superuser, named for what it serves
DATABASE = "dagster"
PASSWORD_ENV = "KBENCH_DEPLOY_PG_PASSWORD"


class Cluster:
    """The cluster under `folder` (owned by postgres) with its password file `password_file` (root's, 0600)."""

    def __init__(self, folder: Path, password_file: Path):
        self.folder = folder
        self.data = folder / "data"
        self.log = folder / "server.log"
        self.password_file = password_file

    def _as_owner(self, cmd: list[str], **kw) -> subprocess.CompletedProcess:
        account = pwd.getpwnam(OWNER)
        return subprocess.run(cmd, user=account.pw_uid, group=account.pw_gid, extra_groups=[], cwd=self.folder,
                              env={"PATH": f"{PG_BIN}:/usr/bin:/bin", "LANG": "C.UTF-8"}, capture_output=True,
                              text=True, **kw)

    def _check_ready(self) -> None:
        if not (PG_BIN / "initdb").exists():
            raise RuntimeError(f"PostgreSQL 15 is not installed ({PG_BIN} has no initdb): apt-get install postgresql "
                               "(make docker-packages does), or point KBENCH_PG_BIN at its bin folder")
        try:
            pwd.getpwnam(OWNER)
        except KeyError:
            raise RuntimeError(f"there is no `{OWNER}` account to run PostgreSQL as: apt-get install postgresql "
                               "makes it") from None
        self.folder.mkdir(parents=True, exist_ok=True)
        account = pwd.getpwnam(OWNER)
        os.chown(self.folder, account.pw_uid, account.pw_gid)
        self.folder.chmod(0o700)
        # The account needs to pass through every parent of the folder; only it can say whether it may.
        if self._as_owner(["/bin/sh", "-c", 'cd "$1"', "sh", str(self.folder)]).returncode != 0:
            raise RuntimeError(f"the {OWNER} account cannot enter {self.folder}: a parent folder is closed to other "
                               "users; set KBENCH_DEPLOY_DIR to a folder under an open path (e.g. /var/tmp)")

    def password(self) -> str:
        return self.password_file.read_text().strip()

    def initialized(self) -> bool:
        return (self.data / "PG_VERSION").exists()

    def init(self) -> None:
        """Make the cluster once; its password file with it."""
        self._check_ready()
        if self.initialized():
            return
        if not self.password_file.exists():
            fd = os.open(self.password_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as fh:
                fh.write(secrets.token_urlsafe(32) + "\n")
        # initdb reads the password from a file it can open: a pipe of root's is closed to it, so it gets a copy
        # of its own in its folder (closed to everyone else), for as long as initdb runs
        account = pwd.getpwnam(OWNER)
        handover = self.folder / "initdb-password"
        fd = os.open(handover, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.fchown(fd, account.pw_uid, account.pw_gid)
        with os.fdopen(fd, "w") as fh:
            fh.write(self.password() + "\n")
        try:
            done = self._as_owner([str(PG_BIN / "initdb"), "-D", str(self.data), "-U", USER, f"--pwfile={handover}",
                                   "--auth=scram-sha-256", "-E", "UTF8", "--locale=C.UTF-8"])
        finally:
            handover.unlink(missing_ok=True)
        if done.returncode != 0:
            raise RuntimeError(f"initdb failed in {self.data}: {done.stderr.strip()[-1500:]}")

    def running_port(self) -> int | None:
        """The port of the cluster's live server, None when none runs (postmaster.pid: pid first, port fourth)."""
        try:
            lines = (self.data / "postmaster.pid").read_text().splitlines()
            pid, port = int(lines[0]), int(lines[3])
            os.kill(pid, 0)
        except (OSError, ValueError, IndexError):
            return None
        return port

    def postmaster_pid(self) -> int | None:
        try:
            return int((self.data / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def start(self, port: int) -> int:
        """Start the server unless it runs (then its own port wins); the dagster database exists after."""
        self.init()
        running = self.running_port()
        if running is None:
            options = f"-k {shlex.quote(str(self.folder))} -c listen_addresses=127.0.0.1 -p {port}"
            # its own session: the server outlives `kbench deploy start` and whatever group started it
            done = self._as_owner([str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-w",
                                   "-t", "60", "-o", options, "start"], start_new_session=True)
            if done.returncode != 0:
                raise RuntimeError(f"PostgreSQL did not start (pg_ctl: {done.stdout.strip()[-500:]}); "
                                   f"see {self.log}")
            running = port
        self._ensure_database(running)
        return running

    def connect(self, port: int, database: str = DATABASE):
        import psycopg2  # brought by dagster-postgres

        return psycopg2.connect(host="127.0.0.1", port=port, user=USER, password=self.password(), dbname=database,
                                connect_timeout=10)

    def _ensure_database(self, port: int) -> None:
        con = self.connect(port, "postgres")
        try:
            con.autocommit = True  # CREATE DATABASE cannot run inside a transaction
            with con.cursor() as cur:
                cur.execute("SELECT 1 FROM pg_database WHERE datname = %s", (DATABASE,))
                if cur.fetchone() is None:
                    cur.execute(f'CREATE DATABASE "{DATABASE}"')
        finally:
            con.close()

    def stop(self) -> bool:
        """Stop the server (fast: open sessions are ended) and wait for it; False when none ran."""
        if self.running_port() is None:
            return False
        done = self._as_owner([str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "-t", "60",
                               "stop"])
        if done.returncode != 0 and self.running_port() is not None:
            raise RuntimeError(f"PostgreSQL did not stop: {done.stderr.strip()[-500:]}")
        return True
