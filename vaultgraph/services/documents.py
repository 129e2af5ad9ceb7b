"""Documents: registered workspace files. Create writes the file and the node; reads honour the principal."""

from __future__ import annotations

import json
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from neo4j import AsyncManagedTransaction
from neo4j.exceptions import ConstraintError

from vaultgraph.domain import Document, Owner, Page, Principal, Scope
from vaultgraph.errors import Conflict, Forbidden, InvalidInput, LimitExceeded, NotFound
from vaultgraph.graph import documents as cypher
from vaultgraph.graph import enrichment_progress as progress_cypher
from vaultgraph.graph import workspace_sync as sync_cypher
from vaultgraph.graph.session import Graph
from vaultgraph.services.pagination import encode_cursor, keyset_cursor, window
from vaultgraph.services.taxonomy import tenant_taxonomy
from vaultgraph.services.wikilink_sync import sync_wikilinks
from vaultgraph.text.resolve import document_name
from vaultgraph.workspace import Workspace, check_document_path, check_key, normalize_path, sha256_hex
from vaultgraph.workspace.formats import check_text_name, doc_type_of

MAX_FILE_BYTES = 50 * 1024 * 1024
MAX_TITLE_LENGTH = 500
DocumentHook = Callable[[Document], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class DocumentDraft:
    path: str
    content: str
    title: str | None = None
    doc_type: str | None = None
    scope: Scope = Scope.SHARED
    agent_id: str | None = None
    team_id: str | None = None
    category: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    data: bytes | None = None  # raw bytes (an attachment) instead of `content`


@dataclass(frozen=True, slots=True)
class CategoryCount:
    """A category (EverOS's L0) and how many documents the caller can see in it."""

    name: str
    description: str | None  # None: a category documents carry that the taxonomy no longer lists
    document_count: int
    in_taxonomy: bool


@dataclass(frozen=True, slots=True)
class DocumentFilter:
    scope: Scope | None = None
    doc_type: str | None = None
    team_id: str | None = None
    agent_id: str | None = None
    category: str | None = None


def owner_of(scope: Scope, agent_id: str | None, team_id: str | None) -> Owner:
    """Check that scope and owner ids agree: personal needs an agent, team needs a team, shared neither."""
    if scope is Scope.PERSONAL:
        if not agent_id:
            raise InvalidInput("agentId", "a personal document needs the agent it belongs to")
        return Owner(scope, check_key(agent_id, "agentId"), None)
    if scope is Scope.TEAM:
        if not team_id:
            raise InvalidInput("teamId", "a team document needs the team it belongs to")
        return Owner(scope, None, check_key(team_id, "teamId"))
    if agent_id or team_id:
        raise InvalidInput("scope", "a shared document has no agentId or teamId; choose PERSONAL or TEAM")
    return Owner(scope)


def check_size(data: bytes) -> bytes:
    """The file's bytes, when within a document's size limit (LIMIT_EXCEEDED otherwise)."""
    if len(data) > MAX_FILE_BYTES:
        raise LimitExceeded(f"content is {len(data)} bytes; a document holds at most {MAX_FILE_BYTES} bytes",
                            field="content", limit=MAX_FILE_BYTES)
    return data


def title_from(path: str, content: str) -> str:
    """The first markdown heading, else the file name without its suffix."""
    for line in content.splitlines()[:50]:
        if line.startswith("# ") and line[2:].strip():
            return line[2:].strip()[:MAX_TITLE_LENGTH]
    return PurePosixPath(path).stem or path


class DocumentService:
    def __init__(
        self, graph: Graph, workspace: Workspace, max_page_size: int, on_created: DocumentHook | None = None,
        on_changed: DocumentHook | None = None,
    ) -> None:
        self.graph = graph
        self.workspace = workspace
        self.max_page_size = max_page_size
        # Called once the file and the node exist (the composition root passes EnrichmentService.enqueue).
        self.on_created = on_created
        # Called when a read finds the file changed behind the graph's back (also EnrichmentService.enqueue).
        self.on_changed = on_changed

    async def create(self, principal: Principal, draft: DocumentDraft) -> Document:
        owner = owner_of(draft.scope, draft.agent_id, draft.team_id)
        if not principal.may_write(owner):
            raise Forbidden(f"you cannot write to the {owner.scope.value} space of {owner.key}")
        # The layout rule: a shared `agents/alice/…` would be alice's file, so the path must be the owner's own.
        path = check_document_path(owner, draft.path)
        if draft.data is None:  # text content: a text kind (raw `data` is an imported attachment, kept as it is)
            check_text_name(path)
        data = check_size(draft.data if draft.data is not None else draft.content.encode("utf-8"))
        category = await self.known_category(principal.tenant_id, draft.category)
        title = (draft.title or "").strip() or title_from(path, draft.content)
        if len(title) > MAX_TITLE_LENGTH:
            raise InvalidInput("title", f"at most {MAX_TITLE_LENGTH} characters")
        doc_type = draft.doc_type or doc_type_of(path)
        target = self.workspace.file_for(principal.tenant_id, owner, path)
        # The file is written inside the node's transaction, before it commits: a document never exists in the
        # graph without its file (a crash after the write leaves only a file, which the next scan registers).
        document = await self._insert(principal.tenant_id, owner, path, data, title, doc_type, draft.metadata,
                                      category, before_commit=lambda: self.workspace.write(target, data))
        if self.on_created is not None:
            await self.on_created(document)
        return document

    async def register(self, tenant_id: str, owner: Owner, path: str, data: bytes, text: str) -> Document:
        """A document for a file already in the workspace (found by a scan): the node only, the file as it is."""
        path = normalize_path(path)
        document = await self._insert(tenant_id, owner, path, data, title_from(path, text), doc_type_of(path), {},
                                      None)
        if self.on_created is not None:
            await self.on_created(document)
        return document

    async def _insert(self, tenant_id: str, owner: Owner, path: str, data: bytes, title: str, doc_type: str,
                      metadata: dict[str, Any], category: str | None,
                      before_commit: Callable[[], Awaitable[None]] | None = None) -> Document:
        if await self.graph.read(cypher.document_id_at, tenant_id, owner.key, path):
            raise Conflict(f"a document already exists at {path!r} in {owner.key}; update it instead", path=path)
        try:
            return await self.graph.write(
                self._create_tx,
                id=f"doc_{uuid.uuid4().hex}", tenant=tenant_id, scope=owner.scope.value,
                agentId=owner.agent_id, teamId=owner.team_id, ownerKey=owner.key, path=path,
                pathLower=path.casefold(), basenameLower=PurePosixPath(path).name.casefold(),
                linkName=document_name(path), title=title,
                docType=doc_type, contentHash=sha256_hex(data), sizeBytes=len(data),
                metadata=json.dumps(metadata), category=category, before_commit=before_commit,
            )
        except ConstraintError as exc:
            raise Conflict(f"a document already exists at {path!r} in {owner.key}", path=path) from exc

    async def find(self, principal: Principal, document_id: str) -> Document | None:
        document = await self.graph.read(cypher.document_by_id, principal.tenant_id, document_id)
        return document if document is not None and principal.may_read(document.owner) else None

    @staticmethod
    async def _create_tx(tx: AsyncManagedTransaction, before_commit: Callable[[], Awaitable[None]] | None,
                         **params: Any) -> Document:
        document = await cypher.create_document(tx, **params)
        # Incoming pass: [[wikilinks]] written before this document existed bind to it now.
        await sync_wikilinks(tx, document, None, bind_own_refs=True)
        if before_commit is not None:
            await before_commit()  # idempotent, as a managed transaction may run this function again
        return document

    async def get(self, principal: Principal, document_id: str) -> Document:
        document = await self.find(principal, document_id)
        if document is None:
            raise NotFound(f"no document with id {document_id!r}", id=document_id)
        return document

    async def get_by_path(self, principal: Principal, path: str) -> Document:
        path = normalize_path(path)
        document = await self.graph.read(
            cypher.document_by_path, principal.tenant_id, path, principal.visible_owner_keys()
        )
        if document is None:
            raise NotFound(f"no document at path {path!r}", path=path)
        return document

    async def page(
        self, principal: Principal, filters: DocumentFilter, first: int | None, after: str | None,
        last: int | None = None, before: str | None = None,
    ) -> Page[Document]:
        """Documents in path order between the cursors: the first `first`, or the last `last` (Relay)."""
        span = window(first, after, last, before, self.max_page_size, keyset_cursor)
        params: dict[str, Any] = {
            "tenant": principal.tenant_id, "ownerKeys": principal.visible_owner_keys(),
            "scope": filters.scope.value if filters.scope else None, "docType": filters.doc_type,
            "teamId": filters.team_id, "agentId": filters.agent_id, "category": filters.category,
            **span.params("Path"),
        }
        rows, total = await self.graph.read(cypher.documents_page_and_total, span.backward, **params)
        return span.page(rows, lambda d: encode_cursor(d.path, d.id), total)

    async def update(
        self, principal: Principal, document_id: str, title: str | None = None, doc_type: str | None = None,
        category: str | None = None, metadata: dict[str, Any] | None = None, content: str | None = None,
        if_content_hash: str | None = None,
    ) -> Document:
        """Change the node's fields, and with `content` the file's text too; every input is checked first, so a
        refused update changes nothing. `if_content_hash`: the hash of the text the caller edited; the file must
        still hold it (CONFLICT otherwise), so an edit made meanwhile is never overwritten unseen."""
        document = await self.get_writable(principal, document_id)
        if title is not None and not (0 < len(title.strip()) <= MAX_TITLE_LENGTH):
            raise InvalidInput("title", f"1 to {MAX_TITLE_LENGTH} characters")
        if if_content_hash is not None and content is None:
            raise InvalidInput("ifContentHash", "goes with `content`: it guards a change of the file's text")
        data = None if content is None else self._text_data(document, content)
        if if_content_hash is not None:
            current = sha256_hex(await self.read_bytes(principal, document))
            if current != if_content_hash:
                raise Conflict(f"{document.path} changed since you read it (its text's hash is {current} now): read "
                               "it again and redo the edit, or leave out ifContentHash to overwrite it",
                               id=document.id, contentHash=current)
        category = await self.known_category(principal.tenant_id, category)
        # A new title is in what enrichment derived from the old one (the vector embeds title, path and summary; a
        # text without headings has one topic named after it), so the document is enriched again, as for a new text.
        retitled = title is not None and title.strip() != document.title
        updated = await self.graph.write(
            self._update_tx, retitled, tenant=principal.tenant_id, id=document.id,
            title=title.strip() if title else None, docType=doc_type, category=category,
            metadata=json.dumps(metadata) if metadata is not None else None,
        )
        if updated is None:  # deleted meanwhile
            raise NotFound(f"no document with id {document.id!r}", id=document.id)
        if data is not None:
            rewritten = await self._rewrite(principal.tenant_id, updated, data)
            if rewritten is not updated:  # a new text: queued again, and announced, by _rewrite
                return rewritten
        if retitled and self.on_changed is not None:
            await self.on_changed(updated)
        return updated

    @staticmethod
    async def _update_tx(tx: AsyncManagedTransaction, requeue: bool, **params: Any) -> Document | None:
        updated = await cypher.update_document(tx, **params)
        if updated is None or not requeue:
            return updated
        requeued = await progress_cypher.requeue(tx, params["tenant"], [updated.id], None)
        return requeued[0] if requeued else updated

    @staticmethod
    def _text_data(document: Document, content: str) -> bytes:
        """The bytes of a document's new text: a text format only (an attachment's bytes are not text), within the
        size limit."""
        check_text_name(document.path)
        return check_size(content.encode("utf-8"))

    async def _rewrite(self, tenant_id: str, document: Document, data: bytes) -> Document:
        """Write the file, then record its hash and queue enrichment again if the text changed. The file goes
        first: should the graph write fail, the next read finds the hash stale and records it (`read_bytes`)."""
        await self.workspace.write(self.workspace.file_for(tenant_id, document.owner, document.path), data)
        digest = sha256_hex(data)
        if digest == document.content_hash:
            return document
        changed = await self.graph.write(sync_cypher.set_content, tenant_id, document.id, digest, len(data))
        if changed is None:  # deleted meanwhile
            raise NotFound(f"no document with id {document.id!r}", id=document.id)
        if self.on_changed is not None:
            await self.on_changed(changed)
        return changed

    async def categories(self, principal: Principal) -> list[CategoryCount]:
        """Every category of the taxonomy with the documents `principal` can see in it, in the taxonomy's order;
        then any category documents still carry that the taxonomy no longer has (edited since), so no document
        goes uncounted."""
        taxonomy = await tenant_taxonomy(self.workspace.root, principal.tenant_id)
        counts = await self.graph.read(cypher.category_counts, principal.tenant_id, principal.visible_owner_keys())
        listed = [CategoryCount(category.id, category.description, counts.pop(category.id, 0), True)
                  for category in taxonomy.categories]
        listed += [CategoryCount(name, None, count, False) for name, count in sorted(counts.items())]
        return listed

    async def known_category(self, tenant_id: str, category: str | None) -> str | None:
        """The taxonomy's spelling of `category`; INVALID_INPUT listing the tenant's categories when it is unknown."""
        if category is None:
            return None
        [known] = (await tenant_taxonomy(self.workspace.root, tenant_id)).known([category], "category")
        return known

    async def get_writable(self, principal: Principal, document_id: str) -> Document:
        document = await self.get(principal, document_id)
        if not principal.may_write(document.owner):
            raise NotFound(f"no document with id {document_id!r}", id=document_id)
        return document

    async def read_content(self, principal: Principal, document: Document) -> str:
        return (await self.read_bytes(principal, document)).decode("utf-8", errors="replace")

    async def read_bytes(self, principal: Principal, document: Document) -> bytes:
        """The file as stored (an attachment's bytes too), checked against its hash on the way."""
        target = self.workspace.file_for(principal.tenant_id, document.owner, document.path)
        data = await self.workspace.read(target, MAX_FILE_BYTES)
        digest = sha256_hex(data)
        if digest != document.content_hash:
            # Edited on disk while no watcher saw it: record the new content and queue enrichment again.
            updated = await self.graph.write(sync_cypher.set_content, principal.tenant_id, document.id, digest,
                                             len(data))
            if updated is not None and self.on_changed is not None:
                await self.on_changed(updated)
        return data

