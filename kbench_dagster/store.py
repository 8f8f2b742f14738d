"""The results store: one DuckDB file holding every run's rows, written in short transactions.

DuckDB lets one process write a file at a time, and a second process fails at once on the lock. Writers
therefore open the file only for one short transaction and retry on a lock for a while: two partitions
finishing together both land, one after the other. Partition writes are delete-then-insert, so a rerun replaces.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import duckdb

from kbench_dagster.store_schema import VIEW, all_tables, full_schema, schema_current, schema_mark
from kbench_dagster.views import SCORED_VIEW

DEFAULT_DB = Path(os.environ.get("KBENCH_DB", Path(__file__).resolve().parent.parent / ".state" / "kbench.duckdb"))

class StoreBusy(RuntimeError):
    pass


class RunManifest(dict):
    """The manifest of a run made on this machine: stored, it brings the description of the endpoint it names, as
    the run found it. A plain dict (an imported run's manifest) names another site's endpoint and leaves this
    machine's endpoints as they are."""


class ResultsStore:
    """A DuckDB file; every method opens it for one short transaction."""

    def __init__(self, path: str | Path = DEFAULT_DB, lock_wait_s: float = 120.0):
        self.path = Path(path)
        self.lock_wait_s = lock_wait_s

    @contextmanager
    def connect(self, read_only: bool = False):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        deadline = time.monotonic() + self.lock_wait_s
        delay = 0.05
        read_only = read_only and self.path.exists()  # a new file is created (with its schema) first
        while True:
            try:
                con = duckdb.connect(str(self.path), read_only=read_only)
                break
            except duckdb.IOException as exc:
                if "lock" not in str(exc).lower() or time.monotonic() > deadline:
                    raise StoreBusy(f"{self.path}: {exc}") from exc
                time.sleep(delay + random.random() * delay)
                delay = min(delay * 1.5, 1.0)
        try:
            schema = full_schema()
            if not read_only and not schema_current(con, schema):
                con.execute(schema)
                con.execute(SCORED_VIEW)
                con.execute(f"COMMENT ON VIEW {VIEW} IS '{schema_mark(schema)}'")  # last: DDL cut short runs again
            yield con
        finally:
            con.close()

    @contextmanager
    def opened_ahead(self):
        """The database file opened in a thread as the block starts and held to its end. DuckDB takes some 30 ms to
        open a file, letting Python run meanwhile, and a connect() while the file is open in this process shares
        that open database: a block that loads or collects before its connect() pays nothing for it. The file stays
        locked to other processes until the block ends: hold it over seconds, never over a run. Only read-write
        connect()s inside: DuckDB refuses a read-only one beside the open database."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        opened: list = []

        def open_it() -> None:
            with contextlib.suppress(duckdb.Error):  # busy or broken: the block's own connect() says so
                opened.append(duckdb.connect(str(self.path)))

        opener = threading.Thread(target=open_it, name="store-opener", daemon=True)
        opener.start()
        try:
            yield
        finally:
            opener.join()
            for con in opened:
                con.close()

    def replace_partition(self, partition_key: str, tables: dict[str, list[dict]]) -> dict[str, int]:
        """Delete-then-insert every row of one partition, in one transaction."""
        return self.replace_partitions({partition_key: tables})

    def replace_partitions(self, partitions: dict[str, dict[str, list[dict]]],
                           manifests: list[dict] = ()) -> dict[str, int]:
        """Many partitions (each delete-then-insert) and their runs' manifests in one transaction: all or nothing."""
        counts: dict[str, int] = {}
        known = all_tables()
        with self.connect() as con:
            con.execute("BEGIN TRANSACTION")
            try:
                for key, tables in partitions.items():
                    for table, rows in tables.items():
                        if table not in known:
                            raise ValueError(f"unknown table {table!r}")
                        con.execute(f"DELETE FROM {table} WHERE partition_key = ?", [key])
                        n = self._insert(con, table, rows, key)
                        counts[table] = counts.get(table, 0) + n
                for m in manifests:
                    self._put_manifest(con, m)
                con.execute("COMMIT")
            except BaseException:
                # DuckDB may already have ended the transaction itself (a failed write on a full disk does):
                # the error to show is the first one, never "no transaction is active".
                with contextlib.suppress(duckdb.Error):
                    con.execute("ROLLBACK")
                raise
        return counts

    @staticmethod
    def _insert(con, table: str, rows: list[dict], partition_key: str) -> int:
        """All rows in one statement, a list per column unnested and cast to the column's type: DuckDB takes a
        row at a time from executemany (a 1,500-trial strike's rows took seconds). DuckDB converts every Python value
        it is handed one by one, and most of a partition's columns hold one value in every row (its run, model,
        endpoint): such a column goes as that one value. A column whose values DuckDB cannot hold in one list
        (mixed kinds) falls back to row by row. Every row goes in under `partition_key`."""
        if not rows:
            return 0
        info = con.execute(f"PRAGMA table_info('{table}')").fetchall()
        cols, types = [r[1] for r in info], [r[2] for r in info]
        names = ", ".join(chr(34) + c + chr(34) for c in cols)
        columns = [[partition_key] * len(rows) if c == "partition_key" else _column(rows, c) for c in cols]
        shared = [_shared(values) for values in columns]
        if all(shared):
            shared[0] = False  # the one list that gives the statement its rows
        try:
            con.execute(f"INSERT INTO {table} ({names}) SELECT " + ", ".join(
                f"CAST(${i + 1} AS {t})" if one else f"CAST(unnest(${i + 1}) AS {t})"
                for i, (t, one) in enumerate(zip(types, shared))),
                [values[0] if one else values for values, one in zip(columns, shared)])
        except (duckdb.ConversionException, duckdb.InvalidInputException, duckdb.NotImplementedException,
                duckdb.BinderException):
            con.executemany(f"INSERT INTO {table} ({names}) VALUES ({', '.join('?' for _ in cols)})",
                            [list(v) for v in zip(*columns)])
        return len(rows)

    def upsert_manifest(self, manifest: dict) -> None:
        with self.connect() as con:
            self._put_manifest(con, manifest)

    @staticmethod
    def _put_manifest(con, manifest: dict) -> None:
        s = manifest["settings"]
        con.execute("DELETE FROM manifests WHERE run_id = ?", [manifest["run_id"]])
        con.execute("INSERT INTO manifests VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", [
            manifest["run_id"], s["model"], s["agent"], s["url"], manifest["suite"]["fingerprint"],
            manifest.get("created"), json.dumps(manifest["versions"]), json.dumps(manifest.get("gpus", [])),
            json.dumps(manifest.get("server", {})), json.dumps(s)])
        if isinstance(manifest, RunManifest) and (manifest.get("endpoint") or {}).get("name"):
            ResultsStore._put_endpoint(con, manifest["endpoint"], s["url"])

    def save_endpoint(self, record: dict, url: str) -> None:
        """An endpoint's latest description (sandbox/servers/hardware.py endpoint_record) under its name."""
        with self.connect() as con:
            self._put_endpoint(con, record, url)

    @staticmethod
    def _put_endpoint(con, record: dict, url: str) -> None:
        cols = ("hardware", "hardware_class", "site", "engine", "engine_version", "build", "model_id", "model_file",
                "quant", "n_ctx", "slots")
        con.execute("INSERT OR REPLACE INTO endpoints VALUES (?, ?, " + ", ".join("?" for _ in cols)
                    + ", ?, ?, ?, now())",
                    [record["name"], url, *[None if record.get(c) is None else str(record[c]) for c in cols],
                     json.dumps(record.get("sampling_defaults") or {}), json.dumps(record.get("declared") or []),
                     json.dumps(record.get("guessed") or [])])

    def endpoints(self) -> list[dict]:
        with self.connect() as con:
            cur = con.execute("SELECT * FROM endpoints ORDER BY name")
            cols = [d[0] for d in cur.description]
            return [dict(zip(cols, row)) for row in cur.fetchall()]

    def remember_model(self, model_key: str, model_id: str, endpoint: str) -> bool:
        """Register a model on an endpoint (the sensor and `kbench models add` both write here); False if it
        was registered already."""
        with self.connect() as con:
            known = con.execute("SELECT 1 FROM models WHERE model_key = ?", [model_key]).fetchone()
            con.execute("INSERT INTO models VALUES (?, ?, ?, now()) ON CONFLICT DO NOTHING",
                        [model_key, model_id, endpoint])
        return known is None

    def forget_model(self, model_key: str) -> bool:
        """Unregister a model; its results stay. False if it was not registered."""
        with self.connect() as con:
            known = con.execute("SELECT 1 FROM models WHERE model_key = ?", [model_key]).fetchone()
            con.execute("DELETE FROM models WHERE model_key = ?", [model_key])
        return known is not None

    def models(self) -> list[dict]:
        with self.connect() as con:
            rows = con.execute("SELECT model_key, model_id, endpoint, first_seen FROM models "
                               "ORDER BY model_id, endpoint").fetchall()
        return [dict(zip(("model_key", "model_id", "endpoint", "first_seen"), r)) for r in rows]

    def model_of(self, model_key: str) -> tuple[str, str] | None:
        with self.connect() as con:
            row = con.execute("SELECT model_id, endpoint FROM models WHERE model_key = ?", [model_key]).fetchone()
        return (row[0], row[1]) if row else None

    def partition_of(self, run_id: str, condition: str, seed: int) -> str | None:
        """The store partition that holds a run's cell (its gradings must live there too)."""
        with self.connect() as con:
            row = con.execute("SELECT partition_key FROM runs WHERE run_id = ? AND condition = ? AND seed = ? "
                              "LIMIT 1", [run_id, condition, seed]).fetchone()
        return row[0] if row else None

    def run_of(self, partition_key: str) -> str | None:
        """The run whose rows a store partition holds now."""
        with self.connect() as con:
            row = con.execute("SELECT run_id FROM runs WHERE partition_key = ? LIMIT 1", [partition_key]).fetchone()
        return row[0] if row else None

    def partition_summary(self, table: str, key: str, by: str) -> list[tuple[str, int, int]]:
        """(value of `by`, rows, passed) over one partition of a kind's table: an asset's preview."""
        if table not in all_tables() or not re.fullmatch(r"\w+", by):
            raise ValueError(f"no table {table!r} or column {by!r} to summarise")
        return self.query(f'SELECT "{by}", count(*), count(*) FILTER (WHERE outcome = \'pass\') FROM {table} '
                          f"WHERE partition_key = ? GROUP BY 1 ORDER BY 1", [key])[1]

    def partition_rows(self, table: str, key: str, columns: tuple[str, ...]) -> list[tuple]:
        """These columns of one partition of a table, ordered by them: an asset's preview."""
        if table not in all_tables() or not all(re.fullmatch(r"\w+", c) for c in columns):
            raise ValueError(f"no table {table!r} or columns {columns!r} to read")
        names = ", ".join(f'"{c}"' for c in columns)
        return self.query(f"SELECT {names} FROM {table} WHERE partition_key = ? ORDER BY {names}", [key])[1]

    def values_of(self, table: str, column: str) -> list:
        """The distinct values of one column of a table, in order."""
        if table not in all_tables() or not re.fullmatch(r"\w+", column):
            raise ValueError(f"no table {table!r} or column {column!r} to read")
        return [v for (v,) in self.query(f'SELECT DISTINCT "{column}" FROM {table} ORDER BY 1')[1]]

    def query(self, sql: str, params: list | None = None) -> tuple[list[str], list[tuple]]:
        """A read-only query: a user's SQL can never change the results."""
        with self.connect():  # tables and views in place (older files gain new views)
            pass
        with self.connect(read_only=True) as con:
            cur = con.execute(sql, params or [])
            return [d[0] for d in cur.description or []], cur.fetchall()


def _cell(value):
    if isinstance(value, (list, dict)):
        return json.dumps(value)
    return value


def _column(rows: list[dict], name: str) -> list:
    values = [r.get(name) for r in rows]
    # the kinds a column holds, looked at once: _cell on every value cost several times the lookup itself
    if any(issubclass(kind, (list, dict)) for kind in set(map(type, values))):
        return [_cell(v) for v in values]
    return values


# Kinds in which two equal values of one kind are the same value (a float zero aside: 0.0 == -0.0); across kinds
# they are not (1 == 1.0 == True, and each casts to text differently).
_EXACT = (str, int, float, bool, type(None))


def _shared(values: list) -> bool:
    """Whether every row holds the very same value, so one parameter can stand for the column."""
    first = values[0]
    if type(first) not in _EXACT or (type(first) is float and first == 0):
        return False
    return len(set(map(type, values))) == 1 and values.count(first) == len(values)
