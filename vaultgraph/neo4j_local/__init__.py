"""The embedded-default Neo4j: a Maven module that fetches Community and a launcher process we manage."""
