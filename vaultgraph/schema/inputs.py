"""Input types of the public API."""

from __future__ import annotations

import strawberry
from strawberry.scalars import JSON

from vaultgraph.schema.types import Scope


@strawberry.input(description="A new document: the file is written to the workspace and registered.")
class DocumentInput:
    path: str = strawberry.field(description="Workspace-relative path, e.g. `guides/setup.md`.")
    content: str
    title: str | None = None
    doc_type: str | None = strawberry.field(default=None, description="Defaults from the file suffix.")
    scope: Scope = Scope.SHARED  # type: ignore[attr-defined]
    agent_id: str | None = None
    team_id: str | None = None
    category: str | None = None
    metadata: JSON | None = None

