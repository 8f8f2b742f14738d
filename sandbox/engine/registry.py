"""The kinds of work by name: the one place that maps a suite name to its kind's card.

Central code (the service, ingest, the store's schema, regrade, the board, the scripted server) asks here and
never compares a kind's name itself; a test (tests/test_kind_registry.py) keeps it so. Each kind declares what the
rest of the system needs of it as a `KindCard` named `CARD`: how to make the kind, the table its verdicts live in
with that table's columns, how one attempt's record becomes rows, whether its run ids carry its name, its scripted
personas and its board pages. The kinds that ship with kbench keep their card in a light module of its own beside
the kind (gpu/kernel_card.py, sandbox/chatwork/*_card.py) and make the kind only when asked, so the store reads
every kind's table, and a command that runs one kind loads none of the others (and no torch but for kernels).

A suite name that no entry claims is a suite of agent tasks (a bundled suite or a folder): sandbox/engine/kinds.py.
A kind from elsewhere is one `register(name, module)` call; the module's CARD does the rest
(sandbox/engine/adding-a-kind.md).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sandbox.engine.attempt_reader import AttemptRecord
    from sandbox.engine.kinds import WorkKind

AGENT_TASKS = "sandbox.engine.kinds"
REPLY_CHARS = 20_000  # what the store keeps of one reply (the record keeps it whole)
# name -> module holding its CARD; a family's name also claims every "name-..." (the breakdown's ways and wordings)
# (in this order on the board's menu)
_MODULES: dict[str, str] = {
    "kernels": "gpu.kernel_card",
    "textjobs": "sandbox.chatwork.textjob_card",
    "breakdown": "sandbox.chatwork.breakdown_card",
    "trials": "sandbox.chatwork.trial_card",
    "capability": "sandbox.chatwork.capability_card",
}


@dataclass(frozen=True)
class RowSource:
    """One attempt as ingest hands it to a kind's row mapper."""

    result: dict  # the result with its latest grading applied
    recorded: dict  # the result as the run recorded it
    record: AttemptRecord  # its files (replies, events), read without following links
    endpoint: dict  # what every row of the run says of its endpoint
    server_url: str | None


@dataclass(frozen=True)
class KindCard:
    """What the rest of the system needs of a kind, declared in the kind's own module."""

    name: str  # the suite name that selects it (with family=True, also every "name-...")
    table: str  # the table that holds its verdicts: what a regrade rewrites
    make: Callable[[str], WorkKind]  # the kind for a suite name it claims
    rows: Callable[[RowSource], dict[str, list[dict]]]  # one attempt's rows, by table
    family: bool = False
    # whether its run ids and store keys carry its name; the agent tasks' do not, and the capability items' never
    # did (their partitions, under agent "api", were keyed without it; changing it would strand stored rows)
    run_suffix: bool = True
    personas: Callable[[str], object | None] | None = None  # its scripted persona by name, or None
    # its table's columns (name -> DuckDB type, partition_key added by the store); None: a table the store's own
    # schema holds (the agent tasks' attempts and gradings)
    columns: dict[str, str] | None = None
    # its board pages: "module:function" called with (store, board folder), and the (title, file) the menu links
    board: str | None = None
    board_menu: tuple[tuple[str, str], ...] = ()

    def claims(self, suite: str) -> bool:
        return suite == self.name or (self.family and suite.startswith(self.name + "-"))


_EXTERNAL: set[str] = set()  # names registered from elsewhere


def named_personas(target: str, *names: str) -> Callable[[str], object | None]:
    """A card's `personas` where one class plays them all: the class at `target` ("module:Class", imported only
    when a persona is made), given the persona's name, for each of `names`."""

    def make(name: str):
        if name not in names:
            return None
        module, cls = target.split(":")
        return getattr(importlib.import_module(module), cls)(name)

    return make


def register(name: str, module: str) -> None:
    """A kind defined elsewhere: its module is imported when a suite named `name` is asked for (and its table made
    in the store when one is opened)."""
    _MODULES[name] = module
    _EXTERNAL.add(name)


def external_cards() -> list[KindCard]:
    """The cards of the kinds registered from elsewhere: their Dagster cell assets come from the one factory."""
    return [importlib.import_module(_MODULES[n]).CARD for n in sorted(_EXTERNAL)]


def _entry(suite: str) -> str | None:
    for name, module in _MODULES.items():
        if suite == name or suite.startswith(name + "-"):
            card = importlib.import_module(module).CARD
            if card.claims(suite):
                return module
    return None


def own_card(suite: str) -> KindCard | None:
    """The card of the kind a suite name selects, or None for a suite of agent tasks (nothing of theirs loaded)."""
    module = _entry(suite)
    return importlib.import_module(module).CARD if module else None


def card(suite: str) -> KindCard:
    """The card of the kind a suite name selects: a registered kind, else the agent tasks."""
    return own_card(suite) or importlib.import_module(AGENT_TASKS).CARD


def all_cards() -> list[KindCard]:
    """Every registered kind's card, in the registry's order."""
    return [importlib.import_module(m).CARD for m in _MODULES.values()]


def is_registered(suite: str) -> bool:
    return _entry(suite) is not None


def kind_of(suite: str) -> WorkKind:
    return card(suite).make(suite)


def persona(suite, name: str):
    """The persona a kind scripts for itself under `name` (oracle, null, noisy), or None; a loaded suite of agent
    tasks (the scripted server takes one) has none of its own."""
    c = own_card(suite) if isinstance(suite, str) else None
    return c.personas(name) if c and c.personas else None


def _from_environment() -> None:
    """KBENCH_KINDS="name=module,...": kinds kept elsewhere, for every command and the Dagster code location."""
    for entry in filter(None, (e.strip() for e in os.environ.get("KBENCH_KINDS", "").split(","))):
        name, eq, module = (p.strip() for p in entry.partition("="))
        if not (eq and name and module):
            raise ValueError(f"KBENCH_KINDS: {entry!r} is not NAME=MODULE (e.g. toy-chat=my_kinds.toy_chat)")
        register(name, module)


_from_environment()
