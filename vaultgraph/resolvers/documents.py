"""Queries and mutations over documents."""

from __future__ import annotations

from typing import Any

import strawberry

from vaultgraph.errors import InvalidInput
from vaultgraph.schema.category_types import Category
from vaultgraph.schema.context import Info
from vaultgraph.schema.inputs import DeletePayload, DocumentInput, DocumentUpdateInput
from vaultgraph.schema.types import Document, DocumentConnection, Scope
from vaultgraph.services.documents import DocumentDraft, DocumentFilter


def _object(value: object, field: str) -> dict[str, Any]:
    """A JSON argument that must be an object."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InvalidInput(field, "must be a JSON object")
    return value


async def document(info: Info, id: strawberry.ID | None = None, path: str | None = None) -> Document | None:
    """One document, by id or by workspace path (exactly one of them)."""
    ctx = info.context
    if (id is None) == (path is None):
        raise InvalidInput("id", "give exactly one of `id` or `path`")
    if id is not None:
        return Document.from_domain(await ctx.services.documents.get(ctx.principal, str(id)))
    return Document.from_domain(await ctx.services.documents.get_by_path(ctx.principal, str(path)))


async def documents(
    info: Info,
    scope: Scope | None = None,
    doc_type: str | None = None,
    team_id: str | None = None,
    agent_id: str | None = None,
    category: str | None = None,
    first: int | None = None,
    after: str | None = None,
) -> DocumentConnection:
    """Documents in path order, a page at a time."""
    ctx = info.context
    filters = DocumentFilter(scope=scope, doc_type=doc_type, team_id=team_id, agent_id=agent_id, category=category)
    return DocumentConnection.from_page(await ctx.services.documents.page(ctx.principal, filters, first, after))


async def categories(info: Info) -> list[Category]:
    """Every category of the taxonomy with its description and how many documents the caller can see in it."""
    ctx = info.context
    return [Category.from_domain(category) for category in await ctx.services.documents.categories(ctx.principal)]


async def create_document(info: Info, input: DocumentInput) -> Document:
    """Write a file into the workspace and register it as a document."""
    ctx = info.context
    draft = DocumentDraft(
        path=input.path, content=input.content, title=input.title, doc_type=input.doc_type, scope=input.scope,
        agent_id=input.agent_id, team_id=input.team_id, category=input.category,
        metadata=_object(input.metadata, "metadata"),
    )
    return Document.from_domain(await ctx.services.documents.create(ctx.principal, draft))


async def update_document(info: Info, id: strawberry.ID, input: DocumentUpdateInput) -> Document:
    """Change a document's title, type, category or metadata (its file is untouched)."""
    ctx = info.context
    updated = await ctx.services.documents.update(
        ctx.principal, str(id), title=input.title, doc_type=input.doc_type, category=input.category,
        metadata=_object(input.metadata, "metadata") if input.metadata is not None else None,
    )
    return Document.from_domain(updated)


async def delete_document(info: Info, id: strawberry.ID) -> DeletePayload:
    """Remove the document and its file; links to it turn back into ghosts."""
    ctx = info.context
    document = await ctx.services.documents.get_writable(ctx.principal, str(id))
    await ctx.services.links.hard_delete(ctx.principal, document)
    return DeletePayload(id=id, deleted=True)
