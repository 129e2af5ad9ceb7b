"""The per-request Context every resolver receives as `info.context`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from strawberry.types import Info as StrawberryInfo

from vaultgraph.domain import Principal

if TYPE_CHECKING:
    from vaultgraph.services.documents import DocumentService


@dataclass
class Services:
    """Every use case the API can reach, built once by the composition root."""

    documents: DocumentService


@dataclass
class Context:
    principal: Principal
    services: Services
    request: Any = None
    response: Any = None


Info = StrawberryInfo[Context, None]
