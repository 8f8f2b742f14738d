"""Thin Dagster assets: each one calls the same functions the CLI calls."""
