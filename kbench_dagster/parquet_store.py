"""The results store as Parquet files that many writers share: a folder, on this machine or on storage every
machine mounts, where each partition's rows land as one set of files and DuckDB views over them are what
`kbench sql`, the board and the assets read.

    ROOT/parts/<hash of the partition key>/v-<time>-<random>/<table>.parquet   one version of one partition
    ROOT/parts/<hash>/current -> v-...                                         the version readers see
    ROOT/catalog/<table>.parquet                                               manifests, endpoints, models

A partition write lays a new version beside the current one (the tables it does not name are carried over, by
hard link) and then swaps the `current` link with one rename: a reader sees the old set or the new, never a mix,
and a writer killed before the swap leaves the old set in place. Different partitions never wait for each other;
the same partition is written by one writer at a time (a lock file per partition), and the small catalog tables
likewise (one lock). Versions that are no longer current are removed once GRACE_S old, so a reader that resolved
the old link a moment ago still finds its files.

Kept behind the ResultsStore interface: the single DuckDB file stays the default on one machine, and `--db DIR`
(or KBENCH_DB=DIR) picks this store. S3 through httpfs is not done: it has no links to swap (a pointer file per
partition read by the reader would take their place).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import secrets
import shutil
import time
from contextlib import contextmanager
from pathlib import Path

import duckdb

from kbench_dagster.store import ResultsStore
from kbench_dagster.store_schema import all_tables, full_schema
from kbench_dagster.views import SCORED_VIEW

CATALOG = ("manifests", "endpoints", "models")
CURRENT = "current"
GRACE_S = 300.0


def _literal(path: Path) -> str:
    """A path as an SQL string literal: a view's definition cannot take parameters."""
    return "'" + str(path).replace("'", "''") + "'"


@contextmanager
def _locked(path: Path):
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # released by the kernel when the holder dies
        yield
    finally:
        os.close(fd)


class ParquetStore(ResultsStore):
    """Every ResultsStore method over a folder of Parquet files (see the module's docstring)."""

    def __init__(self, root: str | Path, lock_wait_s: float = 120.0):
        super().__init__(root, lock_wait_s)
        self.root = Path(root)

    def _part(self, key: str) -> Path:
        return self.root / "parts" / hashlib.sha256(key.encode()).hexdigest()[:32]

    def opened_ahead(self):
        """Nothing to open ahead: every connect() is a database of its own in memory."""
        return contextlib.nullcontext()

    @contextmanager
    def connect(self, read_only: bool = False):
        """An in-memory DuckDB whose partition tables are views over the current files and whose catalog tables
        are read from theirs; unless read_only, the catalog is locked and what the block changed in it is
        written back when the block ends without an error."""
        (self.root / "catalog").mkdir(parents=True, exist_ok=True)
        with contextlib.ExitStack() as stack:
            if not read_only:
                stack.enter_context(_locked(self.root / "catalog" / ".lock"))
            con = duckdb.connect()
            stack.callback(con.close)
            con.execute("ATTACH ':memory:' AS blank")
            con.execute("USE blank")
            schema = full_schema()
            con.execute(schema)  # every table empty and typed: the views' columns even before any file exists
            con.execute("USE memory")
            con.execute(schema)
            for table in all_tables():
                con.execute(f"DROP TABLE {table}")
                files = list(self.root.glob(f"parts/*/{CURRENT}/{table}.parquet"))
                source = f"SELECT * FROM blank.{table}"
                if files:
                    glob = self.root / "parts" / "*" / CURRENT / f"{table}.parquet"
                    source += f" UNION ALL BY NAME SELECT * FROM read_parquet({_literal(glob)}, union_by_name = true)"
                con.execute(f"CREATE VIEW {table} AS {source}")
            for table in CATALOG:
                path = self.root / "catalog" / f"{table}.parquet"
                if path.exists():
                    con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM read_parquet(?)", [str(path)])
            con.execute(SCORED_VIEW)
            before = None if read_only else self._catalog(con)
            yield con
            if before is not None and self._catalog(con) != before:
                self._write_catalog(con)

    def query(self, sql: str, params: list | None = None) -> tuple[list[str], list[tuple]]:
        """A read-only query: a user's SQL sees the views and an in-memory copy of the catalog, never the files."""
        with self.connect(read_only=True) as con:
            cur = con.execute(sql, params or [])
            return [d[0] for d in cur.description or []], cur.fetchall()

    @staticmethod
    def _catalog(con) -> list:
        return [con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall() for t in CATALOG]

    def _write_catalog(self, con) -> None:
        for table in CATALOG:
            final = self.root / "catalog" / f"{table}.parquet"
            tmp = final.with_name(f".{table}.{secrets.token_hex(6)}.parquet")
            con.table(table).write_parquet(str(tmp))
            os.replace(tmp, final)

    def replace_partitions(self, partitions: dict[str, dict[str, list[dict]]],
                           manifests: list[dict] = ()) -> dict[str, int]:
        """Each partition's tables as a new version (every one written before any is swapped in: rows DuckDB
        cannot hold fail the call with nothing changed), then the swaps, then the manifests."""
        for tables in partitions.values():
            unknown = [t for t in tables if t not in all_tables()]
            if unknown:
                raise ValueError(f"unknown table {unknown[0]!r}")
        counts: dict[str, int] = {}
        keys = sorted(partitions)
        with contextlib.ExitStack() as stack:
            for key in keys:  # in one order, so two writers of overlapping sets cannot wait on each other
                stack.enter_context(_locked(self._part(key) / ".lock"))
            made: list[tuple[Path, Path]] = []
            try:
                for key in keys:
                    made.append((self._part(key), self._version(key, partitions[key], counts)))
            except BaseException:
                for _part, version in made:
                    shutil.rmtree(version, ignore_errors=True)
                raise
            for part, version in made:
                link = part / f".{CURRENT}.{secrets.token_hex(6)}"
                os.symlink(version.name, link)
                os.replace(link, part / CURRENT)
                self._collect(part)
        if manifests:
            with self.connect() as con:
                for m in manifests:
                    self._put_manifest(con, m)
        return counts

    def _version(self, key: str, tables: dict[str, list[dict]], counts: dict[str, int]) -> Path:
        part = self._part(key)
        version = part / f"v-{time.time_ns()}-{secrets.token_hex(4)}"
        version.mkdir(parents=True)
        (version / "key.txt").write_text(key, encoding="utf-8")
        current = part / CURRENT
        if current.exists():  # the tables this write does not name stay as they are
            for old in current.resolve().glob("*.parquet"):
                if old.stem not in tables:
                    os.link(old, version / old.name)
        con = duckdb.connect()
        try:
            con.execute(full_schema())
            for table, rows in tables.items():
                n = self._insert(con, table, rows, key)
                counts[table] = counts.get(table, 0) + n
                if n:
                    con.table(table).write_parquet(str(version / f"{table}.parquet"))
        finally:
            con.close()
        return version

    @staticmethod
    def _collect(part: Path) -> None:
        """Remove the versions that are no longer current and are older than GRACE_S."""
        keep = (part / CURRENT).resolve().name
        for version in part.glob("v-*"):
            if version.name != keep and time.time() - version.stat().st_mtime > GRACE_S:
                shutil.rmtree(version, ignore_errors=True)


def open_store(path: str | Path) -> ResultsStore:
    """The store at `path`: a folder (one that exists, or a path ending in / or without a suffix) is the
    Parquet store many writers share; a file (kbench.duckdb) is the single DuckDB file."""
    p = Path(path)
    if p.is_dir() or str(path).endswith("/") or (not p.exists() and not p.suffix):
        return ParquetStore(p)
    return ResultsStore(p)
