"""Link suggestions, accepting one, and the review list of unresolved refs."""

from __future__ import annotations

from typing import Annotated

import strawberry

from vaultgraph.schema.context import Info
from vaultgraph.schema.types.links import Link
from vaultgraph.schema.types.search import GhostRef
from vaultgraph.services.suggestions import DEFAULT_ACCEPT_TYPE


async def accept_suggestion(
    info: Info,
    note_id: Annotated[strawberry.ID, strawberry.argument(description="The note the suggestion was made for.")],
    target_id: Annotated[strawberry.ID, strawberry.argument(description="The suggested item.")],
    type: Annotated[str, strawberry.argument(description="Link type of the new edge.")] = DEFAULT_ACCEPT_TYPE,
) -> Link:
    """Turn a suggestion into a real link from the note, with `origin: user`. NOT_FOUND for a note you cannot
    write or a target you cannot see; CONFLICT when the link exists."""
    ctx = info.context
    link = await ctx.services.suggestions.accept(ctx.principal, str(note_id), str(target_id), type)
    return Link.from_domain(link)


async def ghosts(
    info: Info, first: Annotated[int, strawberry.argument(description="How many refs, 1-50.")] = 20
) -> list[GhostRef]:
    """Unresolved [[refs]], most linked first, each with the notes it might mean (for a person to bind)."""
    ctx = info.context
    return [GhostRef.from_domain(g) for g in await ctx.services.fuzzy.ghosts(ctx.principal, first)]
