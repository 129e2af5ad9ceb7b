"""The per-request Context every resolver receives as `info.context`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from strawberry.types import Info as StrawberryInfo

from vaultgraph.domain import Principal
from vaultgraph.schema.loaders import Loaders
from vaultgraph.schema.use_cases import Services


@dataclass
class Context:
    principal: Principal
    services: Services
    request: Any = None
    response: Any = None
    loaders: Loaders = field(init=False)
    # A WebSocket's connection_init payload (strawberry sets it); the view authenticates it (http/view.py).
    connection_params: dict[str, Any] | None = None
    # Non-fatal notices for the response's `extensions.warnings` (see schema/extensions/warnings.py).
    warnings: list[dict[str, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.loaders = Loaders(self.services, self.principal)

    def warn(self, code: str, message: str) -> None:
        """Tell the client something about an answer that is still an answer (e.g. a skipped search channel)."""
        self.warnings.append({"code": code, "message": message})

    def use_principal(self, principal: Principal) -> None:
        """Name the caller once a WebSocket has authenticated; loaders are rebuilt so none holds the old one."""
        self.principal = principal
        self.loaders = Loaders(self.services, principal)


Info = StrawberryInfo[Context, None]
