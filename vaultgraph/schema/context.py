"""The per-request Context every resolver receives as `info.context`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from strawberry.types import Info as StrawberryInfo

from vaultgraph.domain import Principal
from vaultgraph.schema.loaders import Loaders

if TYPE_CHECKING:
    from vaultgraph.services.documents import DocumentService
    from vaultgraph.services.links import LinkService
    from vaultgraph.services.notes import NoteService


@dataclass
class Services:
    """Every use case the API can reach, built once by the composition root."""

    documents: DocumentService
    notes: NoteService
    links: LinkService


@dataclass
class Context:
    principal: Principal
    services: Services
    request: Any = None
    response: Any = None
    loaders: Loaders = field(init=False)

    def __post_init__(self) -> None:
        self.loaders = Loaders(self.services, self.principal)


Info = StrawberryInfo[Context, None]
