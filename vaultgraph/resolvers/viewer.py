"""`viewer`: the caller as the API sees it (the explorer's tenant switcher shows the tenant it is in)."""

from __future__ import annotations

from vaultgraph.schema.context import Info
from vaultgraph.schema.types.viewer import Viewer


def viewer(info: Info) -> Viewer:
    """Who the API takes you for: your tenant, agent and teams, and whether you see every scope. Reads nothing."""
    return Viewer.from_domain(info.context.principal)
