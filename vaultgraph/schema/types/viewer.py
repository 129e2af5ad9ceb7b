"""Who the API takes the caller for (`Query.viewer`): its own tenant and scopes, never anyone else's."""

from __future__ import annotations

import strawberry

from vaultgraph.domain import Principal


@strawberry.type(description=(
    "Who the API takes you for: your key's tenant, agent and teams (in development mode: the X-Vaultgraph-Tenant, "
    "-Agent and -Teams headers, else the server's development tenant)."))
class Viewer:
    tenant: str = strawberry.field(description="The tenant every read and write of yours is in.")
    agent_id: str | None = strawberry.field(description="The agent you act as; null for a person or a tenant key.")
    team_ids: list[str] = strawberry.field(description="The teams whose items you see, sorted.")
    all_scopes: bool = strawberry.field(description=(
        "You see every scope of the tenant (a tenant-wide key, or development mode without agent or teams)."))

    @classmethod
    def from_domain(cls, principal: Principal) -> Viewer:
        return cls(tenant=principal.tenant_id, agent_id=principal.agent_id, team_ids=sorted(principal.team_ids),
                   all_scopes=principal.sees_all_scopes)
