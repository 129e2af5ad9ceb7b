"""vaultgraph: documents, notes and typed links in Neo4j behind a GraphQL API."""

__version__ = "0.1.0"
