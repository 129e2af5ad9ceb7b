"""The root types and the Schema object."""

from __future__ import annotations

import strawberry
from graphql import GraphQLError
from strawberry.extensions import SchemaExtension
from strawberry.types import ExecutionContext

from vaultgraph.resolvers import documents as document_resolvers
from vaultgraph.resolvers import links as link_resolvers
from vaultgraph.resolvers import notes as note_resolvers
from vaultgraph.schema.errors import ErrorPolicy
from vaultgraph.schema.links import Link
from vaultgraph.schema.types import Document, Note


@strawberry.type
class Query:
    node = strawberry.field(resolver=link_resolvers.node)
    document = strawberry.field(resolver=document_resolvers.document)
    documents = strawberry.field(resolver=document_resolvers.documents)
    note = strawberry.field(resolver=note_resolvers.note)
    notes = strawberry.field(resolver=note_resolvers.notes)
    traverse = strawberry.field(resolver=link_resolvers.traverse)
    graph = strawberry.field(resolver=link_resolvers.graph)
    canvas = strawberry.field(resolver=link_resolvers.canvas)
    tags = strawberry.field(resolver=note_resolvers.tags)


@strawberry.type
class Mutation:
    create_document = strawberry.field(resolver=document_resolvers.create_document)
    update_document = strawberry.field(resolver=document_resolvers.update_document)
    delete_document = strawberry.field(resolver=document_resolvers.delete_document)
    save_note = strawberry.field(resolver=note_resolvers.save_note)
    capture_note = strawberry.field(resolver=note_resolvers.capture_note)
    archive_note = strawberry.field(resolver=note_resolvers.archive_note)
    delete_note = strawberry.field(resolver=note_resolvers.delete_note)
    create_link = strawberry.field(resolver=link_resolvers.create_link)
    delete_link = strawberry.field(resolver=link_resolvers.delete_link)


class VaultgraphSchema(strawberry.Schema):
    def process_errors(self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None) -> None:
        """ErrorPolicy already logged what was unexpected; expected errors are answers, not log noise."""


def build_schema(extra_extensions: list[type[SchemaExtension]] | None = None) -> strawberry.Schema:
    return VaultgraphSchema(
        query=Query, mutation=Mutation, types=[Document, Note, Link],
        extensions=[ErrorPolicy, *(extra_extensions or [])],
    )
