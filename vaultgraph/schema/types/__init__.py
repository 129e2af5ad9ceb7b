"""The GraphQL types and inputs of the public API, one module per area: items.py (Node, Item, Document, Note,
Topic, their connections), links.py, inputs.py, and one module each for search, enrichment, uploads, the vault and
the other areas. Strawberry names a type by its class, so where a module lives never shows in the schema."""
