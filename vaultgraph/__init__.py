"""vaultgraph: documents, notes and typed links in Neo4j behind a GraphQL API."""

from __future__ import annotations


def __getattr__(name: str) -> str:
    # `__version__` on first use: reading the installed metadata costs tens of milliseconds that `vaultgraph --help`
    # (which imports this package) should not pay.
    if name != "__version__":
        raise AttributeError(f"module 'vaultgraph' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:  # pyproject.toml's version, the one home of it (MCP's serverInfo reports it)
        return version("vaultgraph")
    except PackageNotFoundError:  # a checkout on sys.path that was never installed
        return "0.0.0+unknown"
