"""Chat-only kinds of work: the harness asks the server itself (sandbox/engine/chat.py), no agent, no sandbox."""
