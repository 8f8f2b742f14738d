"""Isolation, limits, watchdogs and (later) agent adapters. Never imports dagster."""
