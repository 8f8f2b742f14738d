"""Agents and hidden tests run in isolation: the sandbox (isolation, limits, watchdogs), the agents (agents/),
grading, the run loop and its records, and the model servers (servers/, scripted/). Never imports dagster."""
