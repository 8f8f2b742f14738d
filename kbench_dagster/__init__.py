"""The kbench Dagster code location and the `kbench` CLI."""
