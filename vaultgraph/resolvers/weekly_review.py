"""`generateWeeklyReview`: the chat model's review of a week, saved as a note with links to what it cites."""

from __future__ import annotations

from typing import Annotated

import strawberry

from vaultgraph.schema.context import Info
from vaultgraph.schema.types.review import WeeklyReviewPayload


async def generate_weekly_review(
    info: Info,
    week: Annotated[str | None, strawberry.argument(
        description="An ISO week like 2026-W48; the current week (UTC) when left out.")] = None,
) -> WeeklyReviewPayload:
    """Write (or rewrite) the review note `reviews/<week>` of the week's daily notes and newly enriched documents,
    citing them with [[wikilinks]]. Needs a chat model (`UNAVAILABLE` without one); a week with nothing in it is
    `NOT_FOUND`."""
    ctx = info.context
    return WeeklyReviewPayload.from_domain(await ctx.services.weekly_review.generate(ctx.principal, week))
