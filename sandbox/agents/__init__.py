"""Agent adapters: pi (the npm coding agent, run inside the sandbox) and builtin (our own tool loop)."""
