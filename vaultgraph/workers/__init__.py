"""Background work: the enrichment pipeline and the pool of workers that runs it."""
