"""The bodies of the `kbench` subcommands: one module per group of commands, each holding the function that adds
its commands to the parser and the functions those commands run.

kbench_dagster/cli.py's COMMANDS table names each module and its adding function as strings, and the CLI imports
a module only when one of its commands runs (or when `kbench --help` lists them all). This file therefore imports
nothing: loading one command's module must not load its siblings and their dependencies on every start.

A few commands live elsewhere: the result commands in kbench_dagster/reporting/commands.py, `kernels` in
gpu/cli.py and `selftest` in kbench_dagster/selftest/cli.py. What the commands share with the Dagster assets
(service, store, ingest, reporting, ui) stays outside this package.
"""
