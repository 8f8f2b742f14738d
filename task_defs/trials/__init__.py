"""Tool-use trials: one exchange with tools offered, graded by an oracle (the format, the loader, the oracles)."""
