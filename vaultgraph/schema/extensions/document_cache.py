"""Parse and validate a query text once, not on every request.

A client sends the same few operations again and again; parsing and validating them (graphql-core's rules, plus
the API limits' depth, alias and cost rules) was a tenth of a request's time. strawberry's own `ParserCache` and
`ValidationCache` do not fit: the limits build fresh rule classes per operation (the cost rule reads the
operation's variables), so a cache keyed on the rules never hits. This one keys a validation on what the rules
read: the query text and the variables' integer values (the sizes the cost rule multiplies and the size rule
bounds, schema/extensions/sizes.py, an integral float as the integer it coerces to; any other value counts by its type
alone). Only successes are kept: a refused document is validated again each time, so every
refusal still carries its own errors. Each schema holds its own cache (its limits come from its Settings).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator

from graphql import DocumentNode
from strawberry.extensions import SchemaExtension

from vaultgraph.lru import Lru
from vaultgraph.schema.extensions.sizes import variables_key

DEFAULT_MAXSIZE = 256  # distinct query texts kept; bounded so unique texts cannot grow memory without limit


class DocumentCache(SchemaExtension):
    def __init__(self, documents: Lru[str, DocumentNode], validated: Lru[Hashable, bool]) -> None:
        super().__init__()
        self.documents = documents
        self.validated = validated

    def on_parse(self) -> Iterator[None]:
        context = self.execution_context
        query = context.query
        if query and context.graphql_document is None:
            cached = self.documents.get(query)
            if cached is not None:
                context.graphql_document = cached
        yield
        if query and context.graphql_document is not None and not context.pre_execution_errors:
            self.documents.put(query, context.graphql_document)

    def on_validate(self) -> Iterator[None]:
        context = self.execution_context
        key = (context.query, variables_key(context.variables))
        hit = context.query is not None and self.validated.get(key) is not None
        if hit and context.pre_execution_errors is None:
            context.pre_execution_errors = []  # strawberry validates only while this is None
        yield
        if not hit and context.query is not None and context.pre_execution_errors == []:
            self.validated.put(key, True)


def document_cache(maxsize: int = DEFAULT_MAXSIZE) -> Callable[[], SchemaExtension]:
    """A factory for one schema: every operation gets its own extension, all of them share these two caches."""
    documents: Lru[str, DocumentNode] = Lru(maxsize)
    validated: Lru[Hashable, bool] = Lru(maxsize)
    return lambda: DocumentCache(documents, validated)
