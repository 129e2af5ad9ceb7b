"""The only Cypher in the repo: sessions, migrations and one module per concept."""
