"""vaultgraph: documents, notes and typed links in Neo4j behind a GraphQL API."""

from importlib.metadata import PackageNotFoundError, version

try:  # pyproject.toml's version, the one home of it (MCP's serverInfo reports it)
    __version__ = version("vaultgraph")
except PackageNotFoundError:  # a checkout on sys.path that was never installed
    __version__ = "0.0.0+unknown"
