"""Object types and interfaces of the public API (names kept from the design contract)."""

from __future__ import annotations

from datetime import date, datetime
from typing import TYPE_CHECKING, Annotated, Any, TypeAlias, cast

import strawberry
from graphql import (
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLAbstractType,
    GraphQLResolveInfo,
    InlineFragmentNode,
    SelectionSetNode,
    default_type_resolver,
)
from strawberry.scalars import JSON

from vaultgraph import domain
from vaultgraph.errors import NotFound
from vaultgraph.schema.arguments import After, Before, First, Last, LinkTypes
from vaultgraph.schema.context import Info
from vaultgraph.schema.enums import schema_enum
from vaultgraph.schema.loaders import CountKey, PageKey
from vaultgraph.services.topics import DEFAULT_TOPICS, MAX_TOPICS

if TYPE_CHECKING:
    from vaultgraph.schema.types.links import LinkConnection
    from vaultgraph.schema.types.mentions import UnlinkedMentionConnection
    from vaultgraph.schema.types.search import LinkSuggestion

# The domain's enums are the schema's: registering them with strawberry returns the same classes.
schema_enum(domain.Scope, "Who can see an item: one agent, one team, or the tenant.", {
    "PERSONAL": "One agent's own (needs `agentId`); only that agent sees it.",
    "TEAM": "One team's (needs `teamId`); members of that team see it.",
    "SHARED": "Everyone of the tenant sees it; no `agentId` or `teamId`.",
})
schema_enum(domain.EnrichmentStage, "Where a document is in enrichment; DONE, FAILED and SKIPPED are final.", {
    "QUEUED": "Waiting for a worker (at most 3 batches run at once per process).",
    "PREPARE": "Reading the file (at most 4 MB) and checking its SHA-256 against the last run.",
    "SUMMARIZE": "The chat model writes a summary and picks a category (extractive summary without a model).",
    "EMBED": "Embedding title, path, summary and chunks for vector search; splitting the text into topics.",
    "CLASSIFY": "The chat model types links to similar items (cosine >= 0.7); skipped without a model.",
    "WIKILINKS": "Syncing the [[wikilinks]] of the text into edges.",
    "DONE": "Enriched; searchable by both channels.",
    "FAILED": "Gave up after retries; `error` says why. `reenrich` tries again.",
    "SKIPPED": "Cannot be enriched (empty, over 4 MB, or not UTF-8 text); `error` says why, a retry changes nothing.",
})
schema_enum(domain.LinkOrigin, "Who made a link.", {
    "USER": "A person, through createLink, or anyone through acceptSuggestion.",
    "AGENT": "An agent's API key through createLink (or the MCP tools), or enrichment's link classification "
             "(with the cosine as `confidence`).",
    "WIKILINK": "A [[wikilink]] in a text; changes only with the text.",
    "SUGGESTION": "Kept for links suggested and stored unaccepted; this version writes none (acceptSuggestion "
                  "makes USER links).",
})
schema_enum(domain.Direction, "Which way to follow links.", {
    "OUT": "From source to target, as the link points.",
    "IN": "From target back to source (backlinks).",
    "BOTH": "Either way.",
})
Scope: TypeAlias = domain.Scope
EnrichmentStage: TypeAlias = domain.EnrichmentStage
LinkOrigin: TypeAlias = domain.LinkOrigin
Direction: TypeAlias = domain.Direction

LinkConnectionType = Annotated["LinkConnection", strawberry.lazy("vaultgraph.schema.types.links")]
LinkSuggestionType = Annotated["LinkSuggestion", strawberry.lazy("vaultgraph.schema.types.search")]
UnlinkedMentionConnectionType = Annotated["UnlinkedMentionConnection",
                                          strawberry.lazy("vaultgraph.schema.types.mentions")]
MentionsFirst: TypeAlias = Annotated[int | None, strawberry.argument(description=(
    "Notes of this page, counted from the start (or from `after`); 20 by default, 1 to 50 (each one's body is "
    "read); INVALID_INPUT outside it."))]


@strawberry.interface(description="An object with a globally unique id, fetchable through `node(id:)`.")
class Node:
    id: strawberry.ID = strawberry.field(description=(
        "Globally unique and stable; the prefix tells the type (`doc_`, `note_`, `lnk_`, `topic_`)."))

    @staticmethod
    def resolve_type(obj: Any, info: GraphQLResolveInfo[Any], abstract_type: GraphQLAbstractType) -> Any:
        """The object's schema type, for every field typed by an interface (`Node`, `Item`): read off its class.
        strawberry's default first looks for `strawberry.cast` and generic types, which this schema has neither
        of: a sixth of a graph view's execution, where each edge's `from` and `to` is an `Item`."""
        return type_name_by_class(type(obj)) or default_type_resolver(obj, info, abstract_type)


def type_name_by_class(kind: type) -> str | None:
    """The schema type name of a strawberry type's objects; None for another class (or a generic type), whose
    objects strawberry's default resolver answers."""
    name = _TYPE_NAMES.get(kind)
    if name is None:
        definition = getattr(kind, "__strawberry_definition__", None)
        if definition is None or definition.is_graphql_generic:
            return None
        name = _TYPE_NAMES[kind] = definition.name
    return name


# A plain field typed by an interface is completed without a resolve info (schema/execution.py runtime_type_of).
Node.resolve_type.by_class = type_name_by_class  # type: ignore[attr-defined]


_TYPE_NAMES: dict[type, str] = {}  # schema type name by class (Node.resolve_type); classes are few and fixed


_PAGE_FIELDS = frozenset({"edges", "nodes", "pageInfo"})


def _selected_names(info: Info) -> set[str]:
    """Field names selected on a connection, through fragments: read off the operation's syntax tree, not
    strawberry's `selected_fields` (which converts the whole sub-selection, arguments and all, on every call: once
    per item of a list)."""
    raw = info._raw_info
    names: set[str] = set()
    for node in raw.field_nodes:
        _add_names(node.selection_set, raw.fragments, names)
    return names


def _add_names(selection_set: SelectionSetNode | None, fragments: dict[str, FragmentDefinitionNode],
               names: set[str]) -> None:
    """A function of the module, not a closure: a closure that calls itself is a reference cycle, and it held the
    resolve info, so the whole request waited for the cyclic collector (bench/README.md)."""
    for selection in selection_set.selections if selection_set else ():
        if isinstance(selection, FieldNode):
            names.add(selection.name.value)
        elif isinstance(selection, InlineFragmentNode):
            _add_names(selection.selection_set, fragments, names)
        elif isinstance(selection, FragmentSpreadNode):
            _add_names(fragments[selection.name.value].selection_set, fragments, names)


def _connection(info: Info, item_id: str, outgoing: bool, types: list[str] | None, first: int | None,
                after: str | None, last: int | None, before: str | None) -> LinkConnection:
    from vaultgraph.schema.types.links import LinkConnection

    key_types = tuple(types) if types else None
    selected = _selected_names(info)
    return LinkConnection(page_key=PageKey(item_id, outgoing, key_types, first, after, last, before),
                          count_key=CountKey(item_id, outgoing, key_types),
                          with_totals="totalCount" in selected and bool(selected & _PAGE_FIELDS))


@strawberry.interface(description="A document or a note: something links point to and from.")
class Item(Node):
    title: str = strawberry.field(description="Display title, 1-500 characters.")
    scope: Scope = strawberry.field(description="Who can see it.")
    agent_id: str | None = strawberry.field(description="The owning agent, for PERSONAL; else null.")
    team_id: str | None = strawberry.field(description="The owning team, for TEAM; else null.")

    @strawberry.field(description="Links from this item, ghosts (unresolved [[refs]]) included, oldest first.")
    def outgoing(self, info: Info, types: LinkTypes = None, first: First = None, after: After = None,
                 last: Last = None, before: Before = None) -> LinkConnectionType:
        return _connection(info, str(self.id), True, types, first, after, last, before)

    @strawberry.field(description="Links to this item from items you can see, with their context snippets.")
    def backlinks(self, info: Info, types: LinkTypes = None, first: First = None, after: After = None,
                  last: Last = None, before: Before = None) -> LinkConnectionType:
        # Every backlink's `to` is this item: hand it to the loader `Link.to` asks, so it costs no read.
        item: domain.Item | None = getattr(self, "_domain", None)
        if item is not None:
            info.context.loaders.items.prime(item.id, item)
        return _connection(info, str(self.id), False, types, first, after, last, before)


@strawberry.type(description="A document's enrichment: its stage now, and why it failed or was skipped.")
class EnrichmentState:
    stage: EnrichmentStage = strawberry.field(description="The stage it is in, or the final one it reached.")
    error: str | None = strawberry.field(description="Why, on FAILED and SKIPPED; null otherwise.")
    updated_at: datetime | None = strawberry.field(description="When the stage last changed; null before the first.")

    @classmethod
    def from_domain(cls, state: domain.Enrichment) -> EnrichmentState:
        return cls(stage=state.stage, error=state.error, updated_at=state.updated_at)


@strawberry.type(description="A file of the workspace, registered in the graph.")
class Document(Item):
    path: str = strawberry.field(description=(
        "Workspace-relative path (at most 1,024 characters), unique per owner; `document(path:)` finds it."))
    doc_type: str = strawberry.field(description="The file's kind, from its suffix unless set (markdown, text, json…).")
    summary: str | None = strawberry.field(description="Written by enrichment (SUMMARIZE); null until then.")
    category: str | None = strawberry.field(description="A category of the workspace taxonomy; null until classified.")
    content_hash: str | None = strawberry.field(description="SHA-256 of the file, hex; null before it was read.")
    size_bytes: int = strawberry.field(description="Size of the file in bytes (at most 50 MB).")
    metadata: JSON = strawberry.field(description="A JSON object the client set; `{}` when none.")
    enrichment: EnrichmentState = strawberry.field(description="Where enrichment stands for this document.")
    created_at: datetime = strawberry.field(description="When it was registered (UTC).")
    updated_at: datetime = strawberry.field(description="When it last changed (UTC).")
    _domain: strawberry.Private[domain.Document]

    @strawberry.field(description="The file's text as stored in the workspace.")
    async def content(self, info: Info) -> str:
        return await info.context.services.documents.read_content(info.context.principal, self._domain)

    @strawberry.field(description=(
        "The document's topics (its sections, EverOS's L2) in position order: by its headings, by the chat model "
        "when one is configured, else by length. Written by enrichment (EMBED), replaced whole when it runs again; "
        "empty until then."))
    async def topics(
        self, info: Info,
        first: Annotated[int, strawberry.argument(description=(
            f"The first this many topics in position order, 1 to {MAX_TOPICS} (INVALID_INPUT outside); the "
            "rest are found through search and node(id)."))] = DEFAULT_TOPICS,
    ) -> list[Topic]:
        return [Topic.from_domain(t) for t in (await info.context.loaders.topics.load(str(self.id)))[:first]]

    @classmethod
    def from_domain(cls, doc: domain.Document) -> Document:
        return cls(
            id=strawberry.ID(doc.id), title=doc.title, scope=doc.owner.scope, path=doc.path,
            doc_type=doc.doc_type, summary=doc.summary, category=doc.category, content_hash=doc.content_hash,
            size_bytes=doc.size_bytes, agent_id=doc.owner.agent_id, team_id=doc.owner.team_id,
            metadata=cast(JSON, doc.metadata), enrichment=EnrichmentState.from_domain(doc.enrichment),
            created_at=doc.created_at, updated_at=doc.updated_at, _domain=doc,
        )


@strawberry.type(description=(
    "A section of a document (EverOS's L2 topic): a name, its content, labels and its place in the document's tree."))
class Topic(Node):
    name: str = strawberry.field(description="The section's heading (the document's title for the text before any "
                                             "heading); `Name (2/3)` for a part of a long section cut by length.")
    content: str = strawberry.field(description="The section's text, without its heading line.")
    labels: list[str] = strawberry.field(description=(
        "Keywords of the topic: the chat model's, or without one the #tags its text carries (without `#`)."))
    position: int = strawberry.field(description="Its place among the document's topics, from 0 in reading order.")
    path: list[str] = strawberry.field(description=(
        "The document's title, then the headings down to this topic's own (EverOS's topic path)."))
    depth: int = strawberry.field(description="Its depth in the heading tree: 0 for the text before any heading.")
    _domain: strawberry.Private[domain.Topic]

    @strawberry.field(description="The topic that contains it (the nearest one before it of smaller depth); "
                                  "null at the top.")
    async def parent(self, info: Info) -> Topic | None:
        if self._domain.parent_id is None:
            return None
        topics = await info.context.loaders.topics.load(self._domain.document_id)
        return next((Topic.from_domain(t) for t in topics if t.id == self._domain.parent_id), None)

    @strawberry.field(description="The document the topic belongs to.")
    async def document(self, info: Info) -> Document:
        item = await info.context.loaders.items.load(self._domain.document_id)
        if not isinstance(item, domain.Document):  # gone since the topic was read
            raise NotFound(f"no document with id {self._domain.document_id!r}", id=self._domain.document_id)
        return Document.from_domain(item)

    @classmethod
    def from_domain(cls, topic: domain.Topic) -> Topic:
        return cls(id=strawberry.ID(topic.id), name=topic.name, content=topic.content, labels=list(topic.labels),
                   position=topic.position, path=list(topic.path), depth=topic.depth, _domain=topic)


@strawberry.type(description="Authored markdown stored in the graph; its [[wikilinks]] are edges.")
class Note(Item):
    slug: str = strawberry.field(description=(
        "The wikilink target (`[[slug]]`), unique per owner; `note(slug:)` finds it, a rename changes it."))
    body: str = strawberry.field(description="The whole markdown text, front matter included (at most 5 MB).")
    body_sha256: str = strawberry.field(description=(
        "SHA-256 of `body`, hex; send it back as `NoteInput.ifBodySha256` to refuse a lost update (CONFLICT)."))
    kind: str = strawberry.field(description="note, daily, moc, literature, meeting or another 1-40 characters.")
    tags: list[str] = strawberry.field(description="The #tags of the body and front matter, without `#`, case kept.")
    frontmatter: JSON = strawberry.field(description="The YAML front matter as a JSON object; `{}` when none.")
    note_date: date | None = strawberry.field(description="The day the note is about (daily notes: their day).")
    pinned: bool = strawberry.field(description="Pinned by a user or agent; a filter of `notes`.")
    archived_at: datetime | None = strawberry.field(description=(
        "When it was archived (soft-deleted); null while active. `notes` leaves archived notes out by default."))
    created_by_agent_id: str | None = strawberry.field(description="The agent whose key created it; null for people.")
    indexed: bool = strawberry.field(description=(
        "False while its vector is not in place: its embedding is queued (importVault, `deferIndexing`; the "
        "enrichment workers embed it soon) or no embedding model worked. Keyword-searchable either way."))
    created_at: datetime = strawberry.field(description="When it was created (UTC).")
    updated_at: datetime = strawberry.field(description="When it last changed (UTC); `notes` orders by it.")
    _domain: strawberry.Private[domain.Note]

    @strawberry.field(description="Similar notes not linked yet, with similarity and passage; computed, never stored.")
    async def suggestions(self, info: Info, limit: Annotated[int, strawberry.argument(
            description="Suggestions to return, 1-50.")] = 10) -> list[LinkSuggestionType]:
        from vaultgraph.schema.types.search import LinkSuggestion  # imports this module: at call time

        found = await info.context.services.suggestions.suggest(info.context.principal, str(self.id), limit)
        return [LinkSuggestion.from_domain(s) for s in found]

    @strawberry.field(description=(
        "Notes that write this note's title or an alias (front matter `aliases`) as plain text, not linked there: "
        "case-insensitive, whole words, never inside a [[link]], code, a URL or a #tag (Obsidian's unlinked "
        "mentions). Only notes you can see whose link to this note would resolve to it; archived notes are left out. "
        "Each mention comes with the [[wikilink]] to write in its place."))
    async def unlinked_mentions(self, info: Info, first: MentionsFirst = None,
                                after: After = None) -> UnlinkedMentionConnectionType:
        from vaultgraph.schema.types.mentions import UnlinkedMentionConnection  # imports this module: at call time

        found = await info.context.services.mentions.page(info.context.principal, str(self.id), first, after)
        return UnlinkedMentionConnection.from_domain(found)

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


@strawberry.type(description="Where a page stands in its list (the Relay cursor connections spec).")
class PageInfo:
    has_next_page: bool = strawberry.field(description=(
        "Paging forward (`first`): true when more items follow this page (pass `endCursor` as `after` to read "
        "them). Paging backward (`last`): false, as the spec allows."))
    has_previous_page: bool = strawberry.field(description=(
        "Paging backward (`last`): true when more items come before this page (pass `startCursor` as `before` to "
        "read them). Paging forward (`first`): false, as the spec allows."))
    start_cursor: str | None = strawberry.field(description="The cursor of the page's first edge; null when empty.")
    end_cursor: str | None = strawberry.field(description="The cursor of the page's last edge; null when empty.")

    @classmethod
    def of(cls, page: domain.Page[Any]) -> PageInfo:
        return cls(has_next_page=page.has_next_page, has_previous_page=page.has_previous_page,
                   start_cursor=page.items[0][0] if page.items else None,
                   end_cursor=page.items[-1][0] if page.items else None)


@strawberry.type(description="A document in a page, with the cursor to page from it.")
class DocumentEdge:
    cursor: str = strawberry.field(description="Opaque; pass it as `after` to continue after this document.")
    node: Document = strawberry.field(description="The document.")


@strawberry.type(description="A page of documents in path order (Relay cursor connection).")
class DocumentConnection:
    edges: list[DocumentEdge] = strawberry.field(description="The documents of this page, with their cursors.")
    page_info: PageInfo = strawberry.field(description="Whether more pages follow, and the cursor to get them.")
    total_count: int = strawberry.field(description="All documents matching the filters, across pages.")

    @strawberry.field(description="The documents of this page, without cursors.")
    def nodes(self) -> list[Document]:
        return [edge.node for edge in self.edges]

    @classmethod
    def from_page(cls, page: domain.Page[domain.Document]) -> DocumentConnection:
        edges = [DocumentEdge(cursor=cursor, node=Document.from_domain(doc)) for cursor, doc in page.items]
        return cls(edges=edges, page_info=PageInfo.of(page), total_count=page.total_count)


@strawberry.type(description="A note in a page, with the cursor to page from it.")
class NoteEdge:
    cursor: str = strawberry.field(description="Opaque; pass it as `after` to continue after this note.")
    node: Note = strawberry.field(description="The note.")


@strawberry.type(description="A page of notes, most recently updated first (Relay cursor connection).")
class NoteConnection:
    edges: list[NoteEdge] = strawberry.field(description="The notes of this page, with their cursors.")
    page_info: PageInfo = strawberry.field(description="Whether more pages follow, and the cursor to get them.")
    total_count: int = strawberry.field(description="All notes matching the filters, across pages.")

    @strawberry.field(description="The notes of this page, without cursors.")
    def nodes(self) -> list[Note]:
        return [edge.node for edge in self.edges]

    @classmethod
    def from_page(cls, page: domain.Page[domain.Note]) -> NoteConnection:
        edges = [NoteEdge(cursor=cursor, node=Note.from_domain(note)) for cursor, note in page.items]
        return cls(edges=edges, page_info=PageInfo.of(page), total_count=page.total_count)


@strawberry.type(description="A tag and how many active (not archived) notes carry it.")
class TagCount:
    tag: str = strawberry.field(description="The tag without `#`; nested tags keep their slashes (`project/alpha`).")
    count: int = strawberry.field(description="Active notes carrying it.")
