"""The root Query, Mutation and Subscription, assembled from the resolver modules, and the Schema object. They
live here, not in schema/, because they name resolvers: schema/ holds the types, which resolvers import, and
nothing in schema/ imports a resolver (an import-linter contract in `make test` keeps it so)."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

import strawberry
from graphql import GraphQLError
from strawberry.extensions import SchemaExtension
from strawberry.extensions.runner import SchemaExtensionsRunner
from strawberry.schema.config import StrawberryConfig
from strawberry.types import ExecutionContext

from vaultgraph.metrics import Metrics
from vaultgraph.resolvers import context_pack as context_pack_resolvers
from vaultgraph.resolvers import documents as document_resolvers
from vaultgraph.resolvers import enrichment as enrichment_resolvers
from vaultgraph.resolvers import links as link_resolvers
from vaultgraph.resolvers import notes as note_resolvers
from vaultgraph.resolvers import search as search_resolvers
from vaultgraph.resolvers import suggestions as suggestion_resolvers
from vaultgraph.resolvers import uploads as upload_resolvers
from vaultgraph.resolvers import vault as vault_resolvers
from vaultgraph.resolvers import viewer as viewer_resolvers
from vaultgraph.resolvers import weekly_review as weekly_review_resolvers
from vaultgraph.resolvers import workspace as workspace_resolvers
from vaultgraph.schema.execution import use_lean_resolvers
from vaultgraph.schema.extensions.broadcast import LANE, SharedResults, sharing_executor
from vaultgraph.schema.extensions.document_cache import document_cache
from vaultgraph.schema.extensions.errors import ErrorPolicy
from vaultgraph.schema.extensions.metrics import operation_metrics
from vaultgraph.schema.extensions.runner import LeanExtensionsRunner
from vaultgraph.schema.extensions.warnings import Warnings
from vaultgraph.schema.scalars import SCALARS
from vaultgraph.schema.types.items import Document, Note
from vaultgraph.schema.types.links import Link


def _described(resolver: Callable[..., Any]) -> str:
    """A root field's description is its resolver's docstring, so the text a client reads is the one kept beside
    the code; one paragraph, as it reads in the printed schema."""
    if not resolver.__doc__:
        raise ValueError(f"{resolver.__name__}: a root resolver needs a docstring (it is the field's description)")
    return " ".join(inspect.cleandoc(resolver.__doc__).split())


def _field(resolver: Callable[..., Any]) -> Any:
    return strawberry.field(resolver=resolver, description=_described(resolver))


def _subscription(resolver: Callable[..., Any]) -> Any:
    return strawberry.subscription(resolver=resolver, description=_described(resolver))


@strawberry.type(description="Reads. Every field sees only the caller's tenant and the scopes its key may read.")
class Query:
    node = _field(link_resolvers.node)
    document = _field(document_resolvers.document)
    documents = _field(document_resolvers.documents)
    categories = _field(document_resolvers.categories)
    note = _field(note_resolvers.note)
    notes = _field(note_resolvers.notes)
    traverse = _field(link_resolvers.traverse)
    graph = _field(link_resolvers.graph)
    shortest_path = _field(link_resolvers.shortest_path)
    canvas = _field(link_resolvers.canvas)
    tags = _field(note_resolvers.tags)
    daily_note = _field(note_resolvers.daily_note)
    enrichment_progress = _field(enrichment_resolvers.enrichment_progress)
    search = _field(search_resolvers.search)
    search_report = _field(search_resolvers.search_report)
    ghosts = _field(suggestion_resolvers.ghosts)
    context_pack = _field(context_pack_resolvers.context_pack)
    viewer = _field(viewer_resolvers.viewer)


@strawberry.type(description="Writes. One refused with an error changes nothing; each field names its errors.")
class Mutation:
    create_document = _field(document_resolvers.create_document)
    update_document = _field(document_resolvers.update_document)
    delete_document = _field(document_resolvers.delete_document)
    save_note = _field(note_resolvers.save_note)
    save_notes = _field(note_resolvers.save_notes)
    update_note = _field(note_resolvers.update_note)
    capture_note = _field(note_resolvers.capture_note)
    ingest_meeting = _field(note_resolvers.ingest_meeting)
    archive_note = _field(note_resolvers.archive_note)
    delete_note = _field(note_resolvers.delete_note)
    create_link = _field(link_resolvers.create_link)
    delete_link = _field(link_resolvers.delete_link)
    import_vault = _field(vault_resolvers.import_vault)
    export_vault = _field(vault_resolvers.export_vault)
    rescan_workspace = _field(workspace_resolvers.rescan_workspace)
    upload_documents = _field(upload_resolvers.upload_documents)
    reenrich = _field(enrichment_resolvers.reenrich)
    accept_suggestion = _field(suggestion_resolvers.accept_suggestion)
    generate_weekly_review = _field(weekly_review_resolvers.generate_weekly_review)


@strawberry.type(description="Streams, over a WebSocket at /graphql (the graphql-transport-ws protocol).")
class Subscription:
    enrichment_events = _subscription(enrichment_resolvers.enrichment_events)
    enrichment_progress = _subscription(enrichment_resolvers.enrichment_progress_stream)


class VaultgraphSchema(strawberry.Schema):
    shared_results: SharedResults  # subscription events executed once per shape (schema/extensions/broadcast.py)

    def process_errors(self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None) -> None:
        """ErrorPolicy already logged what was unexpected; expected errors are answers, not log noise."""

    def create_extensions_runner(self, execution_context: ExecutionContext,
                                 extensions: list[SchemaExtension]) -> SchemaExtensionsRunner:
        """Only the extensions with results or a stream hook are asked, per result (schema/extensions/runner.py);
        a graphql-transport-ws operation's lane learns of it (the express, schema/extensions/broadcast.py)."""
        runner = LeanExtensionsRunner(execution_context, extensions)
        lane = LANE.get()
        if lane is not None:
            lane.runner = runner
        return runner


def build_schema(
    extra_extensions: Sequence[type[SchemaExtension] | Callable[[], SchemaExtension]] | None = None,
    config: StrawberryConfig | None = None,
    metrics: Metrics | None = None,
) -> strawberry.Schema:
    """The schema; `create_app` adds the API limits (schema/extensions/limits.py), the batching config from Settings
    and the metrics (/metrics: latency by operation, errors by code, live subscriptions)."""
    shared_results = SharedResults()
    config = config or StrawberryConfig()
    config.scalar_map = {**SCALARS, **config.scalar_map}  # JSON, Date, DateTime (schema/scalars.py)
    schema = VaultgraphSchema(
        query=Query, mutation=Mutation, subscription=Subscription, types=[Document, Note, Link],
        extensions=[*([operation_metrics(metrics)] if metrics is not None else []),
                    (lambda: ErrorPolicy(metrics.errors_by_code)) if metrics is not None else ErrorPolicy,
                    Warnings, *(extra_extensions or []), document_cache()], config=config,
        execution_context_class=sharing_executor(shared_results),
    )
    schema.shared_results = shared_results
    use_lean_resolvers(schema)  # resolvers whose arguments need no conversion skip strawberry's (schema/execution.py)
    return schema
