"""Unlinked mentions of a note (`Note.unlinkedMentions`): the notes that write its name as plain text."""

from __future__ import annotations

import strawberry

from vaultgraph.domain import Page
from vaultgraph.schema.types.items import Note, PageInfo
from vaultgraph.services import mentions as service


@strawberry.type(description=(
    "A plain-text mention of a note's title or alias in another note's body (not in a link, code, a URL or a tag)."))
class TextMention:
    start: int = strawberry.field(description=(
        "Where it starts in the body of `UnlinkedMention.from`, in characters (Unicode code points, as Python counts "
        "them; in JavaScript index `Array.from(body)`, not the string)."))
    end: int = strawberry.field(description="Where it ends (exclusive), counted as `start`.")
    text: str = strawberry.field(description="The mention as written, its case kept: `body[start:end]`.")
    snippet: str = strawberry.field(description=(
        "About 60 characters either side, whitespace collapsed, in whole words, the mention marked `**like this**`."))
    link: str = strawberry.field(description=(
        "The [[wikilink]] to write in its place: the note's name (its path where a nearer note takes the name), "
        "with the mention as the alias when it is spelt otherwise. Replace `body[start:end]` with it and save the "
        "note with `ifBodySha256: from.bodySha256`, so an edit made meanwhile is a CONFLICT, not lost text."))

    @classmethod
    def from_domain(cls, mention: service.Mention) -> TextMention:
        text = mention.text
        return cls(start=text.start, end=text.end, text=text.text, snippet=text.snippet, link=mention.link)


@strawberry.type(description="A note that mentions another without linking it there, with its mentions.")
class UnlinkedMention:
    source: Note = strawberry.field(name="from", description="The note whose body holds the mentions.")
    mentions: list[TextMention] = strawberry.field(description=(
        f"Its plain-text mentions in body order, the first {service.MAX_PER_NOTE} (`count` says how many in all)."))
    count: int = strawberry.field(description="All its plain-text mentions of the note.")

    @classmethod
    def from_domain(cls, found: service.UnlinkedMention) -> UnlinkedMention:
        return cls(source=Note.from_domain(found.source), count=found.count,
                   mentions=[TextMention.from_domain(m) for m in found.mentions])


@strawberry.type(description="A note that mentions this one, with the cursor to page from it.")
class UnlinkedMentionEdge:
    cursor: str = strawberry.field(description="Opaque; pass it as `after` to continue after this note.")
    node: UnlinkedMention = strawberry.field(description="The note and its mentions.")


@strawberry.type(description=(
    "The notes that mention a note in plain text, most recently updated first (Relay cursor connection). No total: "
    "counting would read every candidate's body."))
class UnlinkedMentionConnection:
    edges: list[UnlinkedMentionEdge] = strawberry.field(description="The notes of this page, with their cursors.")
    page_info: PageInfo = strawberry.field(description=(
        f"Whether more pages follow. A page reads at most {service.MAX_SCANNED} candidate notes: when that ends it, "
        "it may hold fewer notes than `first` (even none) with `hasNextPage` true, and `endCursor` goes on after the "
        "last note read."))

    @strawberry.field(description="The notes of this page with their mentions, without cursors.")
    def nodes(self) -> list[UnlinkedMention]:
        return [edge.node for edge in self.edges]

    @classmethod
    def from_domain(cls, found: service.MentionPage) -> UnlinkedMentionConnection:
        page: Page[service.UnlinkedMention] = found.page
        edges = [UnlinkedMentionEdge(cursor=cursor, node=UnlinkedMention.from_domain(m)) for cursor, m in page.items]
        info = PageInfo.of(page)
        if found.resume_cursor is not None:
            info.end_cursor = found.resume_cursor
        return cls(edges=edges, page_info=info)
