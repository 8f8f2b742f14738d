"""The scripted model server: a deterministic OpenAI-compatible server for tests, benchmarks and self-checks.

`kbench serve-scripted --persona P --port N` runs `serve(...)`; tests use `ScriptedServer` in-process:

    with ScriptedServer(persona="oracle", port=0) as srv:
        ...  # point an agent (or an OpenAI client) at srv.url

Personas: oracle (solves a suite task with its reference), null (text only), liar (claims success, does nothing),
chaos (every request fails, rotating kinds), hostile (attacks the sandbox), replay (a JSONL script).
Standard library only, plus task_defs for the oracle. Never imports dagster.
"""

from sandbox.servers.scripted.personas import (
    CHAOS_KINDS,
    HOSTILE_PLAN,
    LIAR_REPLY,
    NULL_REPLY,
    ORACLE_DONE,
    PERSONAS,
    REPLAY_END,
    Conversation,
    Failure,
    ReplayFileError,
    Reply,
    ToolCall,
    load_replay,
    make_persona,
)
from sandbox.servers.scripted.server import LOOPBACK, ScriptedServer, check_host, serve

__all__ = [
    "CHAOS_KINDS",
    "HOSTILE_PLAN",
    "LIAR_REPLY",
    "LOOPBACK",
    "NULL_REPLY",
    "ORACLE_DONE",
    "PERSONAS",
    "REPLAY_END",
    "Conversation",
    "Failure",
    "ReplayFileError",
    "Reply",
    "ScriptedServer",
    "ToolCall",
    "check_host",
    "load_replay",
    "make_persona",
    "serve",
]
