"""Object types and interfaces of the public API (names kept from the design contract)."""

from __future__ import annotations

from datetime import date, datetime
from typing import TYPE_CHECKING, Annotated, TypeAlias, cast

import strawberry
from graphql import FieldNode, FragmentSpreadNode, InlineFragmentNode, SelectionSetNode
from strawberry.scalars import JSON

from vaultgraph import domain
from vaultgraph.schema.context import Info
from vaultgraph.schema.loaders import CountKey, PageKey

if TYPE_CHECKING:
    from vaultgraph.schema.links import LinkConnection
    from vaultgraph.schema.search_types import LinkSuggestion

# The domain's enums are the schema's: registering them with strawberry returns the same classes.
strawberry.enum(domain.Scope, description="Who can see an item: one agent, one team, or the tenant.")
strawberry.enum(domain.EnrichmentStage, description="Where a document is in enrichment.")
strawberry.enum(domain.LinkOrigin, description="Who made a link: a user, an agent, a [[wikilink]]…")
strawberry.enum(domain.Direction, description="Which way to follow links.")
Scope: TypeAlias = domain.Scope
EnrichmentStage: TypeAlias = domain.EnrichmentStage
LinkOrigin: TypeAlias = domain.LinkOrigin
Direction: TypeAlias = domain.Direction

LinkConnectionType = Annotated["LinkConnection", strawberry.lazy("vaultgraph.schema.links")]
LinkSuggestionType = Annotated["LinkSuggestion", strawberry.lazy("vaultgraph.schema.search_types")]


@strawberry.interface(description="An object with a globally unique id, fetchable through `node(id:)`.")
class Node:
    id: strawberry.ID


_PAGE_FIELDS = frozenset({"edges", "nodes", "pageInfo"})


def _selected_names(info: Info) -> set[str]:
    """Field names selected on a connection, through fragments: read off the operation's syntax tree, not
    strawberry's `selected_fields` (which converts the whole sub-selection, arguments and all, on every call: once
    per item of a list)."""
    raw = info._raw_info
    names: set[str] = set()

    def walk(selection_set: SelectionSetNode | None) -> None:
        for selection in selection_set.selections if selection_set else ():
            if isinstance(selection, FieldNode):
                names.add(selection.name.value)
            elif isinstance(selection, InlineFragmentNode):
                walk(selection.selection_set)
            elif isinstance(selection, FragmentSpreadNode):
                walk(raw.fragments[selection.name.value].selection_set)

    for node in raw.field_nodes:
        walk(node.selection_set)
    return names


def _connection(info: Info, item_id: str, outgoing: bool, types: list[str] | None, first: int | None,
                after: str | None) -> LinkConnection:
    from vaultgraph.schema.links import LinkConnection

    key_types = tuple(types) if types else None
    selected = _selected_names(info)
    return LinkConnection(page_key=PageKey(item_id, outgoing, key_types, first, after),
                          count_key=CountKey(item_id, outgoing, key_types),
                          with_totals="totalCount" in selected and bool(selected & _PAGE_FIELDS))


@strawberry.interface(description="A document or a note: something links point to and from.")
class Item(Node):
    title: str
    scope: Scope
    agent_id: str | None
    team_id: str | None

    @strawberry.field(description="Links from this item, ghosts (unresolved [[refs]]) included, oldest first.")
    def outgoing(self, info: Info, types: list[str] | None = None, first: int | None = None,
                 after: str | None = None) -> LinkConnectionType:
        return _connection(info, str(self.id), True, types, first, after)

    @strawberry.field(description="Links to this item from items you can see, with their context snippets.")
    def backlinks(self, info: Info, types: list[str] | None = None, first: int | None = None,
                  after: str | None = None) -> LinkConnectionType:
        # Every backlink's `to` is this item: hand it to the loader `Link.to` asks, so it costs no read.
        item: domain.Item | None = getattr(self, "_domain", None)
        if item is not None:
            info.context.loaders.items.prime(item.id, item)
        return _connection(info, str(self.id), False, types, first, after)


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
            metadata=cast(JSON, doc.metadata), enrichment=EnrichmentState.from_domain(doc.enrichment),
            created_at=doc.created_at, updated_at=doc.updated_at, _domain=doc,
        )


@strawberry.type(description="Authored markdown stored in the graph; its [[wikilinks]] are edges.")
class Note(Item):
    slug: str
    body: str
    body_sha256: str
    kind: str
    tags: list[str]
    frontmatter: JSON
    note_date: date | None
    pinned: bool
    archived_at: datetime | None
    created_by_agent_id: str | None
    indexed: bool
    created_at: datetime
    updated_at: datetime
    _domain: strawberry.Private[domain.Note]

    @strawberry.field(description="Similar notes not linked yet, with similarity and passage; computed, never stored.")
    async def suggestions(self, info: Info, limit: int = 10) -> list[LinkSuggestionType]:
        from vaultgraph.schema.search_types import LinkSuggestion  # imports this module: at call time

        found = await info.context.services.suggestions.suggest(info.context.principal, str(self.id), limit)
        return [LinkSuggestion.from_domain(s) for s in found]

    @classmethod
    def from_domain(cls, note: domain.Note) -> Note:
        return cls(
            id=strawberry.ID(note.id), title=note.title, scope=note.owner.scope, agent_id=note.owner.agent_id,
            team_id=note.owner.team_id, slug=note.slug, body=note.body, body_sha256=note.body_sha256,
            kind=note.kind, tags=list(note.tags), frontmatter=cast(JSON, note.frontmatter), note_date=note.note_date,
            pinned=note.pinned, archived_at=note.archived_at, created_by_agent_id=note.created_by_agent_id,
            indexed=note.indexed, created_at=note.created_at, updated_at=note.updated_at, _domain=note,
        )


def item_type(item: domain.Item) -> Document | Note:
    """The schema type of a domain item."""
    return Note.from_domain(item) if isinstance(item, domain.Note) else Document.from_domain(item)


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
        return cls(edges=edges, page_info=PageInfo(has_next_page=page.has_next_page,
                                                   end_cursor=edges[-1].cursor if edges else None),
                   total_count=page.total_count)


@strawberry.type
class NoteEdge:
    cursor: str
    node: Note


@strawberry.type
class NoteConnection:
    edges: list[NoteEdge]
    page_info: PageInfo
    total_count: int

    @strawberry.field(description="The notes of this page, without cursors.")
    def nodes(self) -> list[Note]:
        return [edge.node for edge in self.edges]

    @classmethod
    def from_page(cls, page: domain.Page[domain.Note]) -> NoteConnection:
        edges = [NoteEdge(cursor=cursor, node=Note.from_domain(note)) for cursor, note in page.items]
        return cls(edges=edges, page_info=PageInfo(has_next_page=page.has_next_page,
                                                   end_cursor=edges[-1].cursor if edges else None),
                   total_count=page.total_count)


@strawberry.type
class TagCount:
    tag: str
    count: int
