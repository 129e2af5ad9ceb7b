"""Domain values: frozen dataclasses that records become in one place (graph/records.py)."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class Scope(enum.Enum):
    PERSONAL = "personal"
    TEAM = "team"
    SHARED = "shared"


class EnrichmentStage(enum.Enum):
    QUEUED = "QUEUED"
    PREPARE = "PREPARE"
    SUMMARIZE = "SUMMARIZE"
    EMBED = "EMBED"
    CLASSIFY = "CLASSIFY"
    WIKILINKS = "WIKILINKS"
    DONE = "DONE"
    FAILED = "FAILED"
    SKIPPED = "SKIPPED"


@dataclass(frozen=True, slots=True)
class Principal:
    """Who is asking: decides the tenant and which scopes are visible. Resolvers never take a tenant as input."""

    tenant_id: str
    agent_id: str | None = None
    team_ids: frozenset[str] = frozenset()
    sees_all_scopes: bool = False  # development mode: the one local user sees every scope of the tenant

    def visible_owner_keys(self) -> list[str] | None:
        """Owner keys this principal may read; None means every owner in the tenant."""
        if self.sees_all_scopes:
            return None
        keys = ["shared", *(f"team:{team}" for team in sorted(self.team_ids))]
        if self.agent_id:
            keys.append(f"agent:{self.agent_id}")
        return keys

    def may_read(self, owner: Owner) -> bool:
        return self.sees_owner_key(owner.key)

    def sees_owner_key(self, owner_key: str) -> bool:
        """`may_read` for an owner known by its key only (as a statement returns it)."""
        keys = self.visible_owner_keys()
        return keys is None or owner_key in keys

    def may_write(self, owner: Owner) -> bool:
        # Today a principal writes wherever it reads; kept apart so the two can diverge in one place.
        return self.may_read(owner)


@dataclass(frozen=True, slots=True)
class Owner:
    """Where an item lives inside a tenant: shared, one agent's personal space, or one team's."""

    scope: Scope
    agent_id: str | None = None
    team_id: str | None = None

    @property
    def key(self) -> str:
        """A stable string for uniqueness constraints, which ignore nodes with a null property."""
        if self.scope is Scope.PERSONAL:
            return f"agent:{self.agent_id}"
        if self.scope is Scope.TEAM:
            return f"team:{self.team_id}"
        return "shared"


@dataclass(frozen=True, slots=True)
class Enrichment:
    stage: EnrichmentStage
    error: str | None = None
    updated_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class Document:
    id: str
    tenant_id: str
    owner: Owner
    path: str
    title: str
    doc_type: str
    content_hash: str | None
    size_bytes: int
    summary: str | None
    category: str | None
    metadata: dict[str, Any]
    enrichment: Enrichment
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class Topic:
    """A section of a document (EverOS's L2): `position` orders a document's topics from 0, `path` runs from the
    document's title down to the topic's own heading, `parent_id` is the nearest topic before it of smaller depth."""

    id: str
    tenant_id: str
    document_id: str
    owner_key: str  # the document's, so a read can check who may see it
    position: int
    name: str
    path: tuple[str, ...]
    depth: int
    content: str
    labels: tuple[str, ...]
    parent_id: str | None


@dataclass(frozen=True, slots=True)
class Page(Generic[T]):
    """One page of a cursor-paginated list."""

    items: list[tuple[str, T]]
    has_next_page: bool
    total_count: int = 0
    has_previous_page: bool = False  # known when paging backward (Relay's last/before)
    extra: dict[str, Any] = field(default_factory=dict)


class LinkOrigin(enum.Enum):
    USER = "user"
    AGENT = "agent"
    WIKILINK = "wikilink"
    SUGGESTION = "suggestion"


class Direction(enum.Enum):
    OUT = "OUT"
    IN = "IN"
    BOTH = "BOTH"


@dataclass(frozen=True, slots=True)
class Note:
    id: str
    tenant_id: str
    owner: Owner
    slug: str
    title: str
    body: str
    body_sha256: str
    frontmatter: dict[str, Any]
    tags: tuple[str, ...]
    kind: str
    note_date: date | None
    pinned: bool
    archived_at: datetime | None
    created_by_agent_id: str | None
    indexed: bool
    created_at: datetime
    updated_at: datetime
    vault_path: str | None = None
    # The teams of the agent that last saved it (recorded for personal notes): its wikilinks may bind to their items.
    link_teams: tuple[str, ...] = ()


Item = Document | Note


@dataclass(frozen=True, slots=True)
class Link:
    """A typed edge, the one shape every surface maps from. `target_id` is None while it points at a ghost;
    `source`/`target` hold the endpoint items when the statement that read the link brought them.
    `ref` is the target as authored (never rewritten); `key` the resolution key binding compares
    (text/resolve.py `link_key`)."""

    id: str
    type: str
    source_id: str
    target_id: str | None
    ref: str
    key: str
    label: str | None
    heading: str | None
    context: str | None
    origin: LinkOrigin
    confidence: float | None
    created_at: datetime
    created_by_agent_id: str | None = None
    source: Item | None = None
    target: Item | None = None


@dataclass(frozen=True, slots=True)
class Reached:
    """One node a traversal reached: how deep, by which edge, in which direction."""

    item: Item
    depth: int
    via_link_id: str
    via_type: str
    via_direction: Direction
    from_id: str


@dataclass(frozen=True, slots=True)
class ApiKey:
    """An API key as stored: never the secret, only what it grants and its lifecycle."""

    id: str
    prefix: str  # the first characters of the secret, so a person can tell their keys apart
    name: str | None
    tenant_id: str
    agent_id: str | None
    team_ids: tuple[str, ...]
    all_scopes: bool  # a tenant-wide key that sees every scope, like the development mode's local user
    created_at: datetime
    expires_at: datetime | None
    revoked_at: datetime | None
    last_used_at: datetime | None

    def principal(self) -> Principal:
        return Principal(tenant_id=self.tenant_id, agent_id=self.agent_id, team_ids=frozenset(self.team_ids),
                         sees_all_scopes=self.all_scopes)
