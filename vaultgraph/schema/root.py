"""The root types and the Schema object."""

from __future__ import annotations

import strawberry
from graphql import GraphQLError
from strawberry.extensions import SchemaExtension
from strawberry.types import ExecutionContext

from vaultgraph.resolvers import documents
from vaultgraph.schema.errors import ErrorPolicy
from vaultgraph.schema.types import Document


@strawberry.type
class Query:
    node = strawberry.field(resolver=documents.node)
    document = strawberry.field(resolver=documents.document)
    documents = strawberry.field(resolver=documents.documents)


@strawberry.type
class Mutation:
    create_document = strawberry.field(resolver=documents.create_document)


class VaultgraphSchema(strawberry.Schema):
    def process_errors(self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None) -> None:
        """ErrorPolicy already logged what was unexpected; expected errors are answers, not log noise."""


def build_schema(extra_extensions: list[type[SchemaExtension]] | None = None) -> strawberry.Schema:
    return VaultgraphSchema(
        query=Query, mutation=Mutation, types=[Document], extensions=[ErrorPolicy, *(extra_extensions or [])]
    )
