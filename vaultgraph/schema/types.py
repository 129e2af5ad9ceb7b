"""Object types and interfaces of the public API (names kept from the design contract)."""

from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.scalars import JSON

from vaultgraph import domain
from vaultgraph.schema.context import Info

Scope = strawberry.enum(domain.Scope, description="Who can see an item: one agent, one team, or the tenant.")
EnrichmentStage = strawberry.enum(domain.EnrichmentStage, description="Where a document is in enrichment.")


@strawberry.interface(description="An object with a globally unique id, fetchable through `node(id:)`.")
class Node:
    id: strawberry.ID


@strawberry.interface(description="A document or a note: something links point to and from.")
class Item(Node):
    title: str
    scope: Scope


@strawberry.type
class EnrichmentState:
    stage: EnrichmentStage
    error: str | None
    updated_at: datetime | None

    @classmethod
    def from_domain(cls, state: domain.Enrichment) -> EnrichmentState:
        return cls(stage=state.stage, error=state.error, updated_at=state.updated_at)


@strawberry.type(description="A file of the workspace, registered in the graph.")
class Document(Item):
    path: str
    doc_type: str
    summary: str | None
    category: str | None
    content_hash: str | None
    size_bytes: int
    agent_id: str | None
    team_id: str | None
    metadata: JSON
    enrichment: EnrichmentState
    created_at: datetime
    updated_at: datetime
    _domain: strawberry.Private[domain.Document]

    @strawberry.field(description="The file's text as stored in the workspace.")
    async def content(self, info: Info) -> str:
        return await info.context.services.documents.read_content(info.context.principal, self._domain)

    @classmethod
    def from_domain(cls, doc: domain.Document) -> Document:
        return cls(
            id=strawberry.ID(doc.id), title=doc.title, scope=doc.owner.scope, path=doc.path,
            doc_type=doc.doc_type, summary=doc.summary, category=doc.category, content_hash=doc.content_hash,
            size_bytes=doc.size_bytes, agent_id=doc.owner.agent_id, team_id=doc.owner.team_id,
            metadata=doc.metadata, enrichment=EnrichmentState.from_domain(doc.enrichment),
            created_at=doc.created_at, updated_at=doc.updated_at, _domain=doc,
        )


@strawberry.type
class PageInfo:
    has_next_page: bool
    end_cursor: str | None


@strawberry.type
class DocumentEdge:
    cursor: str
    node: Document


@strawberry.type
class DocumentConnection:
    edges: list[DocumentEdge]
    page_info: PageInfo
    total_count: int

    @strawberry.field(description="The documents of this page, without cursors.")
    def nodes(self) -> list[Document]:
        return [edge.node for edge in self.edges]

    @classmethod
    def from_page(cls, page: domain.Page[domain.Document]) -> DocumentConnection:
        edges = [DocumentEdge(cursor=cursor, node=Document.from_domain(doc)) for cursor, doc in page.items]
        return cls(
            edges=edges,
            page_info=PageInfo(has_next_page=page.has_next_page, end_cursor=edges[-1].cursor if edges else None),
            total_count=page.total_count,
        )

