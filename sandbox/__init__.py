"""Agents and hidden tests run in isolation. isolation/: the bubblewrap sandbox, seccomp, uids, sessions and their
watchdogs; tasks/: laying, grading, validating and auditing tasks; agents/: pi and the builtin agent with pi's
relay and proxy; engine/: the one run loop, its work kinds, records and regrading; servers/: the llama.cpp server,
the scripted server and probes. Never imports dagster."""
