"""Queries and mutations over documents."""

from __future__ import annotations

from typing import Annotated, Any

import strawberry

from vaultgraph.errors import InvalidInput
from vaultgraph.schema.arguments import After, Before, First, Last, ScopeFilter
from vaultgraph.schema.context import Info
from vaultgraph.schema.types.categories import Category
from vaultgraph.schema.types.inputs import DeletePayload, DocumentInput, DocumentUpdateInput, owner_scope
from vaultgraph.schema.types.items import Document, DocumentConnection
from vaultgraph.services.documents import DocumentDraft, DocumentFilter


def _object(value: object, field: str) -> dict[str, Any]:
    """A JSON argument that must be an object."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InvalidInput(field, "must be a JSON object")
    return value


async def document(
    info: Info,
    id: Annotated[strawberry.ID | None, strawberry.argument(description="The document's id.")] = None,
    path: Annotated[str | None, strawberry.argument(description="Its workspace-relative path.")] = None,
) -> Document | None:
    """One document, by id or by workspace path: exactly one of them (INVALID_INPUT otherwise); NOT_FOUND when
    there is none you can see."""
    ctx = info.context
    if (id is None) == (path is None):
        raise InvalidInput("id", "give exactly one of `id` or `path`")
    if id is not None:
        return Document.from_domain(await ctx.services.documents.get(ctx.principal, str(id)))
    return Document.from_domain(await ctx.services.documents.get_by_path(ctx.principal, str(path)))


async def documents(
    info: Info,
    scope: ScopeFilter = None,
    doc_type: Annotated[str | None, strawberry.argument(description="Only this docType (markdown, json…).")] = None,
    team_id: Annotated[str | None, strawberry.argument(description="Only this team's documents.")] = None,
    agent_id: Annotated[str | None, strawberry.argument(description="Only this agent's documents.")] = None,
    category: Annotated[str | None, strawberry.argument(description="Only documents of this category.")] = None,
    first: First = None,
    after: After = None,
    last: Last = None,
    before: Before = None,
) -> DocumentConnection:
    """Documents you can see, in path order, a page at a time (Relay cursor connection)."""
    ctx = info.context
    filters = DocumentFilter(scope=scope, doc_type=doc_type, team_id=team_id, agent_id=agent_id, category=category)
    page = await ctx.services.documents.page(ctx.principal, filters, first, after, last, before)
    return DocumentConnection.from_page(page)


async def categories(info: Info) -> list[Category]:
    """Every category of the taxonomy (EverOS's L0 tier) in its order, with its description and how many documents
    the caller can see in it; then any category documents still carry that an edited taxonomy dropped."""
    ctx = info.context
    return [Category.from_domain(category) for category in await ctx.services.documents.categories(ctx.principal)]


async def create_document(
    info: Info, input: Annotated[DocumentInput, strawberry.argument(description="The file and its owner.")],
) -> Document:
    """Write a file into the workspace and register it as a document, QUEUED for enrichment. CONFLICT when a
    document already has that path in that space; FORBIDDEN for a space your key cannot write."""
    ctx = info.context
    draft = DocumentDraft(
        path=input.path, content=input.content, title=input.title, doc_type=input.doc_type,
        scope=owner_scope(input.scope), agent_id=input.agent_id, team_id=input.team_id, category=input.category,
        metadata=_object(input.metadata, "metadata"),
    )
    return Document.from_domain(await ctx.services.documents.create(ctx.principal, draft))


async def update_document(
    info: Info,
    id: Annotated[strawberry.ID, strawberry.argument(description="The document to change.")],
    input: Annotated[DocumentUpdateInput, strawberry.argument(description="The fields to change; the others stay.")],
) -> Document:
    """Change a document's title, type, category or metadata, or its file's text (`content`; the file is untouched
    without it). NOT_FOUND for a document you cannot write."""
    ctx = info.context
    updated = await ctx.services.documents.update(
        ctx.principal, str(id), title=input.title, doc_type=input.doc_type, category=input.category,
        metadata=_object(input.metadata, "metadata") if input.metadata is not None else None, content=input.content,
        if_content_hash=input.if_content_hash,
    )
    return Document.from_domain(updated)


async def delete_document(
    info: Info, id: Annotated[strawberry.ID, strawberry.argument(description="The document to delete.")],
) -> DeletePayload:
    """Remove the document and its file; links to it turn back into ghosts. NOT_FOUND for a document you cannot
    write."""
    ctx = info.context
    document = await ctx.services.documents.get_writable(ctx.principal, str(id))
    await ctx.services.links.hard_delete(ctx.principal, document)
    return DeletePayload(id=id, deleted=True)
