"""Queries and mutations over documents."""

from __future__ import annotations

import strawberry

from vaultgraph.errors import InvalidInput
from vaultgraph.schema.context import Info
from vaultgraph.schema.inputs import DocumentInput
from vaultgraph.schema.types import Document, DocumentConnection, Node, Scope
from vaultgraph.services.documents import DocumentDraft, DocumentFilter


async def document(info: Info, id: strawberry.ID | None = None, path: str | None = None) -> Document | None:
    """One document, by id or by workspace path (exactly one of them)."""
    ctx = info.context
    if (id is None) == (path is None):
        raise InvalidInput("id", "give exactly one of `id` or `path`")
    if id is not None:
        return Document.from_domain(await ctx.services.documents.get(ctx.principal, str(id)))
    assert path is not None  # narrowed by the check above
    return Document.from_domain(await ctx.services.documents.get_by_path(ctx.principal, path))


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
    filters = DocumentFilter(
        scope=scope, doc_type=doc_type, team_id=team_id,
        agent_id=agent_id, category=category,
    )
    page = await ctx.services.documents.list(ctx.principal, filters, first, after)
    return DocumentConnection.from_page(page)


async def node(info: Info, id: strawberry.ID) -> Node | None:
    """Any object by its global id; null when it does not exist or is not visible."""
    ctx = info.context
    if str(id).startswith("doc_"):
        found = await ctx.services.documents.find(ctx.principal, str(id))
        return Document.from_domain(found) if found else None
    return None


async def create_document(info: Info, input: DocumentInput) -> Document:
    """Write a file into the workspace and register it as a document."""
    ctx = info.context
    draft = DocumentDraft(
        path=input.path, content=input.content, title=input.title, doc_type=input.doc_type,
        scope=input.scope, agent_id=input.agent_id, team_id=input.team_id,
        category=input.category, metadata=dict(input.metadata or {}),
    )
    return Document.from_domain(await ctx.services.documents.create(ctx.principal, draft))
