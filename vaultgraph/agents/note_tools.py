"""The notes tools of Octipus's agent tool set: list and query notes, suggest links, archive, export a canvas, sync a
vault. Each is a thin call of the service the GraphQL resolver of the same thing calls, with the caller's
principal, so the rules and the errors are the same on both surfaces."""

# No `from __future__ import annotations`: the SDK reads the tool signatures to build their input schemas.

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from pydantic import Field

from vaultgraph.agents import views
from vaultgraph.agents.common import ItemId, ScopeArg, answer, item_scope, principal_of, tool_error
from vaultgraph.domain import Note, Page
from vaultgraph.errors import AppError
from vaultgraph.interop.canvas import neighbourhood_canvas
from vaultgraph.schema.use_cases import Services
from vaultgraph.services.notes import NoteFilter
from vaultgraph.services.suggestions import MAX_SUGGESTIONS

Kind = Annotated[str | None, Field(description="Only notes of this kind: note, daily, moc, literature, meeting, …")]
Tag = Annotated[str | None, Field(description="Only notes carrying this tag (without #), e.g. project/alpha.")]
Pinned = Annotated[bool | None, Field(description="Only pinned (true) or unpinned (false) notes.")]
Archived = Annotated[bool, Field(description="Include archived notes.")]
First = Annotated[int, Field(ge=1, le=100, description="Most notes to return.")]
After = Annotated[str | None, Field(description="`next` of the previous answer, for the following page.")]


def _page_view(page: Page[Note]) -> dict[str, Any]:
    return {"notes": [views.item_view(note) for _, note in page.items], "totalCount": page.total_count,
            "next": page.items[-1][0] if page.has_next_page and page.items else None}


def register_note_tools(mcp: MCPServer, services: Services) -> None:
    @mcp.tool(description=(
        "List notes, most recently updated first, with filters; `totalCount` says how many match and `next` "
        "continues the list."))
    async def list_notes(
        ctx: Context, kind: Kind = None, tag: Tag = None, pinned: Pinned = None, scope: ScopeArg = None,
        includeArchived: Archived = False,  # noqa: N803
        first: First = 20, after: After = None,
    ) -> dict[str, Any]:
        filters = NoteFilter(scope=item_scope(scope), kind=kind, tag=tag, pinned=pinned,
                             include_archived=includeArchived)
        return _page_view(await answer(services.notes.page(principal_of(ctx), filters, first, after)))

    @mcp.tool(description=(
        "Query notes by their front-matter properties (Obsidian Bases style) and fields. `where` is a condition "
        "{property: name | field: kind|tag|pinned|title|slug|noteDate|createdAt|updatedAt, op: "
        "eq|ne|in|gt|gte|lt|lte|exists|missing, value} or a group {and: [...]} / {or: [...]} / {not: {...}}; at "
        "most 5 levels and 20 conditions. `orderBy` sorts by properties or fields, nulls last. Example: "
        '{"and": [{"property": "status", "op": "eq", "value": "open"}, {"property": "priority", "op": "gte", '
        '"value": 2}]}'))
    async def query_notes(
        ctx: Context,
        where: Annotated[dict[str, Any] | None, Field(description="The condition tree (see the tool description).")]
        = None,
        orderBy: Annotated[list[dict[str, Any]] | None, Field(description=(  # noqa: N803
            'Up to 5 sort keys, e.g. [{"property": "due", "direction": "ASC"}, {"field": "title"}].'))] = None,
        kind: Kind = None, tag: Tag = None, scope: ScopeArg = None,
        includeArchived: Archived = False,  # noqa: N803
        first: First = 20, after: After = None,
    ) -> dict[str, Any]:
        filters = NoteFilter(scope=item_scope(scope), kind=kind, tag=tag, include_archived=includeArchived)
        return _page_view(await answer(services.notes.query(principal_of(ctx), filters, where, orderBy, first,
                                                            after)))

    @mcp.tool(description=(
        "Notes and documents worth linking from a note, by meaning, that it does not link to yet; computed, "
        "nothing is saved (link_items or link_knowledge makes the link)."))
    async def suggest_links(
        id: ItemId, ctx: Context,
        limit: Annotated[int, Field(ge=1, le=MAX_SUGGESTIONS, description="Most suggestions.")] = 10,
    ) -> dict[str, Any]:
        found = await answer(services.suggestions.suggest(principal_of(ctx), id, limit))
        return {"suggestions": [{**views.item_view(s.target), "similarity": round(s.similarity, 4),
                                 "passage": s.passage} for s in found]}

    @mcp.tool(description=(
        "Archive a note (a soft delete: it, its links and its text stay, hidden from lists) or restore it."))
    async def archive_note(
        id: ItemId, ctx: Context,
        archived: Annotated[bool, Field(description="true archives, false restores.")] = True,
    ) -> dict[str, Any]:
        note = await answer(services.notes.archive(principal_of(ctx), id, archived))
        return {**views.item_view(note), "archived": note.archived_at is not None}

    @mcp.tool(description=(
        "The neighbourhood of an item as a JSON Canvas (Obsidian's open format: nodes and edges), to save as a "
        ".canvas file."))
    async def export_canvas(
        id: ItemId, ctx: Context,
        hops: Annotated[int, Field(ge=1, le=5, description="How many links away to include.")] = 1,
    ) -> dict[str, Any]:
        return await answer(neighbourhood_canvas(services.links, principal_of(ctx), id, hops))

    @mcp.tool(description=(
        "Two-way Obsidian vault sync with a folder on the server: import reads its markdown through the save "
        "pipeline (the graph wins a conflict unless force), export writes every note and document you see."))
    async def sync_vault(
        path: Annotated[str, Field(description="An absolute folder on the server, inside the allowed vault folders.")],
        ctx: Context,
        direction: Annotated[Literal["import", "export"], Field(description="import or export.")] = "import",
        force: Annotated[bool, Field(description="Import: a file that differs from its note wins.")] = False,
    ) -> dict[str, Any]:
        principal = principal_of(ctx)
        try:
            folder = services.vault.server_folder(path)
        except AppError as exc:
            raise tool_error(exc) from exc
        if direction == "export":
            written = await answer(services.vault.export_vault(principal, folder))
            return {"written": written.written, "attachments": written.attachments,
                    "skipped": [{"path": p, "reason": r} for p, r in written.skipped]}
        read = await answer(services.vault.import_vault(principal, folder, force))
        return {"files": read.files, "created": read.created, "updated": read.updated, "unchanged": read.unchanged,
                "conflicts": read.conflicts, "attachments": read.attachments, "links": read.links,
                "skipped": [{"path": p, "reason": r} for p, r in read.skipped]}
