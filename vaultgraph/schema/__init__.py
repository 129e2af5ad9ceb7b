"""GraphQL types, inputs and the Context: no Cypher and no business rules here."""
