"""The MCP endpoint: vaultgraph's use cases as tools an agent calls over streamable HTTP (the official `mcp` SDK).

Who is asking is decided by http/auth.py, exactly as for GraphQL (API keys, or the development mode on loopback):
`McpEndpoint` admits each HTTP request and puts the principal in the ASGI scope, where every tool reads it from the
request the SDK hands over. Stateless and JSON-answering: no MCP session outlives its request, so a principal is
never carried from one request to another. The session manager's task group runs inside the app's lifespan.
"""

# No `from __future__ import annotations`: the SDK reads the tool signatures to build their input schemas.

from datetime import date
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import Field, ValidationError
from starlette.requests import HTTPConnection
from starlette.types import Receive, Scope, Send

from vaultgraph import __version__
from vaultgraph.agents import views
from vaultgraph.agents.common import (
    PRINCIPAL_KEY,
    DirectionName,
    ItemId,
    ScopeArg,
    ScopeName,
    Types,
    answer,
    item_scope,
    principal_of,
    split_types,
)
from vaultgraph.agents.note_tools import register_note_tools
from vaultgraph.domain import Direction, Note
from vaultgraph.domain import Scope as ItemScope
from vaultgraph.events.foreground import Foreground
from vaultgraph.http.auth import Authenticator
from vaultgraph.http.disconnects import read_body_first
from vaultgraph.http.refusals import Refusal
from vaultgraph.schema.use_cases import Services
from vaultgraph.services.links import MAX_HOPS, MAX_TRAVERSAL_NODES, LinkDraft
from vaultgraph.services.notes import NoteDraft
from vaultgraph.services.search_request import SearchMode, SearchRequest

INSTRUCTIONS = (
    "vaultgraph is a knowledge vault: documents and markdown notes joined by typed links ([[wikilinks]] in notes "
    "become links). Start with vault_search (mode graph adds linked items) or context_pack; read_item for the full "
    "text; list_notes and query_notes (front-matter properties) to browse notes; backlinks and traverse to follow "
    "links; write_note, link_items and capture to add knowledge (marked as written by you); suggest_links, "
    "archive_note, export_canvas and sync_vault for the rest."
)


def argument_problem(error: Any) -> str:
    """One argument error in our words (pydantic's text names its own internals and echoes the value)."""
    field = ".".join(str(part) for part in error.get("loc", ())) or "arguments"
    kind, limits = error.get("type", ""), error.get("ctx") or {}
    if kind == "missing":
        return f"{field}: is required"
    if kind == "extra_forbidden":
        return f"{field}: is not an argument of this tool"
    for bound, words in (("le", "at most"), ("lt", "less than"), ("ge", "at least"), ("gt", "more than")):
        if bound in limits:
            return f"{field}: must be {words} {limits[bound]}"
    if kind == "literal_error" and "expected" in limits:
        return f"{field}: must be one of {limits['expected']}"
    for prefix, expected in (("int", "a whole number"), ("string", "a string"), ("bool", "true or false"),
                             ("float", "a number")):
        if kind.startswith(prefix):
            return f"{field}: must be {expected}"
    return f"{field}: is not valid"


class VaultMCPServer(MCPServer):
    """The SDK's server, with argument errors answered as our own coded message (`INVALID_INPUT: field: …`), the
    way `answer()` words the services' errors, not as pydantic's validation report."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if not isinstance(cause, ValidationError):
                raise
            problems = "; ".join(argument_problem(error) for error in cause.errors())
            raise ToolError(f"INVALID_INPUT: {problems} (tool {name}; its input schema lists the arguments)") \
                from None


def build_mcp(services: Services) -> MCPServer:
    """The MCP server and its tools; `McpEndpoint` serves it."""
    mcp = VaultMCPServer(name="vaultgraph", instructions=INSTRUCTIONS, version=__version__)

    @mcp.tool(description=(
        "Search the vault (hybrid: full text and meaning) for documents and notes. Returns the best items with their "
        "id, title, relevance score (0-1) and a snippet (and rerankScore, when the server reranks: the order is "
        "then the reranker's; and topic, the section of a document that matched: its id, name and path). Use "
        "read_item with an id for the full text. Mode graph "
        "also follows one link both ways from the hits: at most 25 more items in `linked`, each with the link "
        "that brought it."))
    async def vault_search(
        query: Annotated[str, Field(description="Natural-language query, e.g. 'authentication flow'.")],
        ctx: Context,
        scope: ScopeArg = None,
        types: Types = None,
        maxResults: Annotated[int, Field(ge=1, le=100, description="Most items to return.")] = 10,  # noqa: N803
        mode: Annotated[Literal["hybrid", "keyword", "vector", "graph"], Field(description=(
            "hybrid (default), keyword, vector, or graph (hybrid hits, then their linked items)."))] = "hybrid",
    ) -> dict[str, Any]:
        request = SearchRequest(query=query, mode=SearchMode[mode.upper()], scope=item_scope(scope),
                                types=split_types(types), limit=maxResults)
        result = await answer(services.search.search(principal_of(ctx), request))
        answered: dict[str, Any] = {"results": [views.hit_view(hit) for hit in result.hits if not hit.via]}
        if request.mode is SearchMode.GRAPH:
            answered["linked"] = [views.linked_view(hit) for hit in result.hits if hit.via]
        return answered

    @mcp.tool(description=(
        "Read one item by id: a note's markdown body, or a document's summary and text (first 20,000 characters)."))
    async def read_item(id: ItemId, ctx: Context) -> dict[str, Any]:
        principal = principal_of(ctx)
        item = await answer(services.links.item(principal, id))
        if isinstance(item, Note):
            return views.text_view(item, item.body)
        return views.text_view(item, await answer(services.documents.read_content(principal, item)))

    @mcp.tool(description="Items that link TO the given item (backlinks), newest first, with the link type.")
    async def backlinks(
        id: ItemId, ctx: Context,
        first: Annotated[int, Field(ge=1, le=100, description="Most links to return.")] = 20,
    ) -> dict[str, Any]:
        principal = principal_of(ctx)
        await answer(services.links.item(principal, id))
        pages = await answer(services.links.pages(principal, [id], False, None, first, None))
        links = [link for _, link in pages[id].items] if id in pages else []
        sources = await answer(services.links.items(principal, [link.source_id for link in links]))
        return {"backlinks": [views.link_view(link, sources.get(link.source_id)) for link in links],
                "more": pages[id].has_next_page if id in pages else False}

    # The bounds are GraphQL's `traverse` (the service checks them): the same limits, the same coded errors.
    @mcp.tool(description=(
        "Follow links from an item, breadth first: every item reached within `hops` links, with its depth and the "
        "link it was reached by. Reaching more than `maxNodes` items is an error (LIMIT_EXCEEDED), never a silent "
        "cut: ask again with fewer hops or a direction."))
    async def traverse(
        id: ItemId, ctx: Context,
        hops: Annotated[int, Field(description=f"How many links away to go, 1 to {MAX_HOPS}.")] = 1,
        direction: Annotated[DirectionName, Field(
            description="OUT: links this item makes; IN: links to it; BOTH.")] = "BOTH",
        maxNodes: Annotated[int, Field(  # noqa: N803
            description=f"Most items to reach, 1 to {MAX_TRAVERSAL_NODES}; more is LIMIT_EXCEEDED.")] = 50,
    ) -> dict[str, Any]:
        reached, _ = await answer(services.links.traverse(
            principal_of(ctx), [id], hops, Direction[direction], max_nodes=maxNodes))
        return {"items": [views.reached_view(r) for r in reached]}

    @mcp.tool(description=(
        "Create or update a markdown note. [[Title]] or [[slug]] in the body become links (backlinks appear on "
        "the target); #tags become tags. Give `id` to update an existing note (its whole body is replaced; a new "
        "title renames it and rewrites the [[links]] to it in the notes that link to it)."))
    async def write_note(
        title: Annotated[str, Field(description="The note's title, 1-300 characters.")],
        body: Annotated[str, Field(description="Markdown; may start with YAML frontmatter.")],
        ctx: Context,
        id: Annotated[str | None, Field(description="The note to update; omit to create one.")] = None,
        kind: Annotated[str | None, Field(description=(
            "note, meeting, literature, moc, …; omitted: the frontmatter's `kind`, else unchanged (new: note)."),
        )] = None,
        scope: Annotated[ScopeName, Field(
            description="Who sees a new note: PERSONAL (only you), TEAM, or SHARED (the tenant).")] = "SHARED",
        teamId: Annotated[str | None, Field(description="The team, when scope is team.")] = None,  # noqa: N803
    ) -> dict[str, Any]:
        principal = principal_of(ctx)
        draft = NoteDraft(title=title, body=body, id=id, kind=kind, scope=ItemScope[scope],
                          agent_id=principal.agent_id if scope == "PERSONAL" else None, team_id=teamId)
        result = await answer(services.notes.save(principal, draft))
        return {**views.item_view(result.note), "created": result.created,
                "rewrittenNotes": [note.id for note in result.readable_rewritten(principal)]}

    link_description = (
        "Link two items with a typed edge: RELATED, REFERENCES, DEPENDS_ON, EXTENDS, SUPERSEDES, CONTRADICTS, "
        "DERIVED_FROM, CHILD_OF, MENTIONS, or a new UPPER_SNAKE_CASE type. Give `target` (an id) "
        "or `ref` (a title or slug; an unknown name becomes a placeholder that resolves when such a note appears).")

    async def link_items(
        source: Annotated[str, Field(description="The item id the link starts from.")],
        ctx: Context,
        type: Annotated[str, Field(description="The link type, e.g. RELATED (case-insensitive).")] = "RELATED",
        target: Annotated[str | None, Field(description="The target item id.")] = None,
        ref: Annotated[str | None, Field(description="The target's title or slug, instead of `target`.")] = None,
        context: Annotated[str | None, Field(description="Why the items are linked, one sentence.")] = None,
    ) -> dict[str, Any]:
        principal = principal_of(ctx)
        link = await answer(services.links.create(principal, LinkDraft(
            source_id=source, type=type, target_id=target, ref=ref, context=context)))
        return views.link_view(link, link.source)

    # One tool under two names: link_items (ours) and link_knowledge (the Octipus tool set's).
    mcp.tool(name="link_items", description=link_description)(link_items)
    mcp.tool(name="link_knowledge", description=link_description + " Same as link_items.")(link_items)

    @mcp.tool(description=(
        "Append a timestamped line to today's daily note (or another day's): a quick thought, a fact, a todo."))
    async def capture(
        text: Annotated[str, Field(description="What to note down.")], ctx: Context,
        day: Annotated[date | None, Field(description=(
            "The day whose daily note gets it, YYYY-MM-DD between 1900 and 2200; default today (UTC)."))] = None,
    ) -> dict[str, Any]:
        result = await answer(services.days.capture(principal_of(ctx), text, day=day))
        return views.item_view(result.note)

    @mcp.tool(description=(
        "Everything worth reading about a query, within a token budget: the most relevant items (relevance >= 0.3, "
        "at most 5) with their summary or best passage, plus items linked to them, each saying why it is included; "
        "whole sentences only. `text` is ready to read; `omitted` lists what did not fit."))
    async def context_pack(
        query: Annotated[str, Field(description="What you are about to work on.")], ctx: Context,
        budgetTokens: Annotated[int, Field(ge=16, le=32000, description="Most tokens of text.")] = 2000,  # noqa: N803
        scope: ScopeArg = None,
        types: Types = None,
    ) -> dict[str, Any]:
        service = services.context_pack
        pack = await answer(service.pack(principal_of(ctx), query, budgetTokens, item_scope(scope),
                                         split_types(types)))
        return views.pack_view(pack, service.counter.count(pack.text))

    register_note_tools(mcp, services)
    return mcp


class McpEndpoint:
    """The ASGI app at /mcp: admit the request (http/auth.py), then hand it to the SDK's session manager."""

    def __init__(self, manager: StreamableHTTPSessionManager, authenticator: Authenticator,
                 foreground: Foreground | None = None) -> None:
        self.manager = manager
        self.authenticator = authenticator
        self.foreground = foreground or Foreground()  # calls in flight, which background lanes give way to

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            principal = await self.authenticator.http(HTTPConnection(scope))
        except Refusal as refusal:
            await refusal.response()(scope, receive, send)
            return
        scope[PRINCIPAL_KEY] = principal
        if scope.get("method") != "POST":  # a stream or a session's end: nothing a lane should wait for
            await self.manager.handle_request(scope, receive, send)
            return
        receive = await read_body_first(receive)  # a client gone mid-body is a quiet disconnect, not the SDK's 500
        with self.foreground.serving():  # stateless JSON: one call, answered in this response
            await self.manager.handle_request(scope, receive, send)


def build_endpoint(services: Services, authenticator: Authenticator,
                   foreground: Foreground | None = None) -> McpEndpoint:
    """Stateless JSON responses. The SDK's DNS-rebinding check is off: the app's Host check (http/hosts.py) guards
    every route, /mcp included, with the same rule and a coded answer."""
    mcp = build_mcp(services)
    mcp.streamable_http_app(streamable_http_path="/mcp", stateless_http=True, json_response=True,
                            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False))
    return McpEndpoint(mcp.session_manager, authenticator, foreground)

