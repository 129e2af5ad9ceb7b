"""The root Query, Mutation and Subscription, assembled from the resolver modules, and the Schema object. They
live here, not in schema/, because they name resolvers: schema/ holds the types, which resolvers import, and
nothing in schema/ imports a resolver (an import-linter contract in `make test` keeps it so)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import strawberry
from graphql import GraphQLError
from strawberry.extensions import SchemaExtension
from strawberry.schema.config import StrawberryConfig
from strawberry.types import ExecutionContext

from vaultgraph.resolvers import context_pack as context_pack_resolvers
from vaultgraph.resolvers import documents as document_resolvers
from vaultgraph.resolvers import enrichment as enrichment_resolvers
from vaultgraph.resolvers import links as link_resolvers
from vaultgraph.resolvers import notes as note_resolvers
from vaultgraph.resolvers import search as search_resolvers
from vaultgraph.resolvers import suggestions as suggestion_resolvers
from vaultgraph.resolvers import uploads as upload_resolvers
from vaultgraph.resolvers import vault as vault_resolvers
from vaultgraph.resolvers import weekly_review as weekly_review_resolvers
from vaultgraph.resolvers import workspace as workspace_resolvers
from vaultgraph.schema.broadcast import SharedResults, sharing_executor
from vaultgraph.schema.document_cache import document_cache
from vaultgraph.schema.errors import ErrorPolicy
from vaultgraph.schema.links import Link
from vaultgraph.schema.types import Document, Note
from vaultgraph.schema.warnings import Warnings


@strawberry.type
class Query:
    node = strawberry.field(resolver=link_resolvers.node)
    document = strawberry.field(resolver=document_resolvers.document)
    documents = strawberry.field(resolver=document_resolvers.documents)
    categories = strawberry.field(resolver=document_resolvers.categories, description=(
        "The taxonomy's categories (EverOS's L0) in its order, each with its description and the number of "
        "documents the caller can see in it; then any category documents carry that the taxonomy no longer has."))
    note = strawberry.field(resolver=note_resolvers.note)
    notes = strawberry.field(resolver=note_resolvers.notes)
    traverse = strawberry.field(resolver=link_resolvers.traverse)
    graph = strawberry.field(resolver=link_resolvers.graph)
    canvas = strawberry.field(resolver=link_resolvers.canvas)
    tags = strawberry.field(resolver=note_resolvers.tags)
    daily_note = strawberry.field(resolver=note_resolvers.daily_note, description=(
        "The day's daily note `daily/YYYY-MM-DD`: the one you already see (your own, else the shared one, else a "
        "team's), or a new one from the template in your own space (an agent's personal one, else shared). "
        "Concurrent first calls make one note."))
    enrichment_progress = strawberry.field(resolver=enrichment_resolvers.enrichment_progress)
    search = strawberry.field(resolver=search_resolvers.search)
    search_report = strawberry.field(resolver=search_resolvers.search_report)
    ghosts = strawberry.field(resolver=suggestion_resolvers.ghosts)
    context_pack = strawberry.field(resolver=context_pack_resolvers.context_pack)


@strawberry.type
class Mutation:
    create_document = strawberry.field(resolver=document_resolvers.create_document)
    update_document = strawberry.field(resolver=document_resolvers.update_document)
    delete_document = strawberry.field(resolver=document_resolvers.delete_document)
    save_note = strawberry.field(resolver=note_resolvers.save_note)
    update_note = strawberry.field(resolver=note_resolvers.update_note, description=(
        "Change some fields of a note (pin, archive, kind, date, front-matter properties) through the save pipeline; "
        "a field left out stays as it is. NOT_FOUND for a note you cannot write."))
    capture_note = strawberry.field(resolver=note_resolvers.capture_note)
    ingest_meeting = strawberry.field(resolver=note_resolvers.ingest_meeting, description=(
        "Record a meeting as a note of kind `meeting` (slug meetings/<date>-<title>: ingesting it again updates "
        "it) with one ATTENDED edge per attendee, bound exactly (email or exact name of a person note) or left "
        "on a ghost of the name that binds when that person note is created. INVALID_INPUT naming the field."))
    archive_note = strawberry.field(resolver=note_resolvers.archive_note)
    delete_note = strawberry.field(resolver=note_resolvers.delete_note)
    create_link = strawberry.field(resolver=link_resolvers.create_link)
    delete_link = strawberry.field(resolver=link_resolvers.delete_link)
    import_vault = strawberry.field(resolver=vault_resolvers.import_vault)
    export_vault = strawberry.field(resolver=vault_resolvers.export_vault)
    rescan_workspace = strawberry.field(resolver=workspace_resolvers.rescan_workspace)
    upload_documents = strawberry.field(resolver=upload_resolvers.upload_documents)
    reenrich = strawberry.field(resolver=enrichment_resolvers.reenrich)
    accept_suggestion = strawberry.field(resolver=suggestion_resolvers.accept_suggestion)
    generate_weekly_review = strawberry.field(resolver=weekly_review_resolvers.generate_weekly_review)


@strawberry.type
class Subscription:
    enrichment_events = strawberry.subscription(resolver=enrichment_resolvers.enrichment_events)
    enrichment_progress = strawberry.subscription(resolver=enrichment_resolvers.enrichment_progress_stream)


class VaultgraphSchema(strawberry.Schema):
    shared_results: SharedResults  # subscription events executed once per shape (schema/broadcast.py)

    def process_errors(self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None) -> None:
        """ErrorPolicy already logged what was unexpected; expected errors are answers, not log noise."""


def build_schema(
    extra_extensions: Sequence[type[SchemaExtension] | Callable[[], SchemaExtension]] | None = None,
    config: StrawberryConfig | None = None,
) -> strawberry.Schema:
    """The schema; `create_app` adds the API limits (schema/limits.py) and the batching config from Settings."""
    shared_results = SharedResults()
    schema = VaultgraphSchema(
        query=Query, mutation=Mutation, subscription=Subscription, types=[Document, Note, Link],
        extensions=[ErrorPolicy, Warnings, *(extra_extensions or []), document_cache()], config=config,
        execution_context_class=sharing_executor(shared_results),
    )
    schema.shared_results = shared_results
    return schema
