"""What a rename does to the links that name the renamed note: Obsidian's "automatically update internal links".

Every note whose [[link]] is bound to the renamed note by a name it no longer has gets that link's target
rewritten in its body (alias, heading, embed and `.md` kept; code never touched: text/link_edits.py), saved through
the pipeline in the rename's transaction (SHA, tags, the link diff, which binds the new name), whoever owns it: the
graph and the bodies must keep agreeing. The links still naming the old name after that (all of them when the
caller asks not to rewrite; links from documents, whose workspace files a note save does not edit) become ghosts of
the old name, which bind again when a note takes it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from neo4j import AsyncManagedTransaction

from vaultgraph.domain import Note, Principal
from vaultgraph.graph import notes as cypher
from vaultgraph.services.note_drafts import NoteDraft
from vaultgraph.services.wikilink_sync import own_refs, safe_slug
from vaultgraph.text.link_edits import Retarget, retarget_links
from vaultgraph.text.wikilinks import WikiLink

# Saves drafts of existing notes in the transaction; the saved notes.
SaveDrafts = Callable[[AsyncManagedTransaction, Principal, list[NoteDraft]], Awaitable[list[Note]]]


def retarget(keys: Sequence[str], note: Note) -> Retarget:
    """The new target text of a link whose key is one of `keys` (the names its edge to `note` is bound by): the
    note's title when it spells the slug's name (`[[New Name]]`), else that name; a link written as a path gets the
    note's folder too."""
    wanted = {safe_slug(key) or key for key in keys}
    folder, _, slug_name = note.slug.rpartition("/")
    name = note.title if safe_slug(note.title) == slug_name else slug_name
    full = f"{folder}/{name}" if folder else name

    def new_target(link: WikiLink) -> str | None:
        if not link.target or (safe_slug(link.target) or link.target.strip()) not in wanted:
            return None
        return full if "/" in link.target else name

    return new_target


async def follow_rename(
    tx: AsyncManagedTransaction, principal: Principal, note: Note, rewrite: bool, save: SaveDrafts
) -> tuple[Note, ...]:
    """After `note` was renamed in `tx`: rewrite (when `rewrite`) and ghost the links to its old name; the notes
    rewritten."""
    tenant = principal.tenant_id
    names = own_refs(note)
    rewritten: list[Note] = []
    if rewrite:
        sources = await cypher.stale_inbound_sources(tx, tenant, note.id, names)
        stored = await cypher.notes_by_ids(tx, tenant, sorted(sources)) if sources else {}
        drafts: list[NoteDraft] = []
        for source in stored.values():
            body, changed = retarget_links(source.body, retarget(sources[source.id], note))
            if changed:
                drafts.append(NoteDraft(id=source.id, title=source.title, slug=source.slug, body=body,
                                        if_body_sha256=source.body_sha256, rewrite_links=False))
        rewritten = await save(tx, principal, drafts) if drafts else []
    await cypher.ghost_stale_inbound(tx, tenant, note.id, names)
    return tuple(rewritten)
