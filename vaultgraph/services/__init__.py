"""Use cases: documents, notes, links, search, enrichment control. They raise AppError and publish events."""
