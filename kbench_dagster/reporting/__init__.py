"""The results side: statistics, the `kbench` reports and the static board, read from records or the store."""
