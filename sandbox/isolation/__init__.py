"""Isolation: the bubblewrap sandbox, its seccomp filter and uids, sessions and their watchdogs, limits,
bounded tree walks."""
