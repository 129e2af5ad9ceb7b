"""vaultgraph's benchmark suite: `python -m bench --help` (or `make bench`). See bench/README.md."""
