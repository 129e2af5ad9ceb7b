"""The weekly review's payload: the saved note, what the model was given, what it cited, what was left out."""

from __future__ import annotations

from datetime import date
from typing import TypeAlias

import strawberry

from vaultgraph.schema.enums import schema_enum
from vaultgraph.schema.types.items import Item, Note, item_type
from vaultgraph.services import weekly_review as service

schema_enum(service.SourceRole, "What a source of a weekly review is.", {
    "DAILY_NOTE": "A daily note of the week.",
    "DOCUMENT": "A document whose enrichment finished that week.",
}, name="ReviewSourceRole")
ReviewSourceRole: TypeAlias = service.SourceRole


@strawberry.type(description="A daily note or newly enriched document of the reviewed week.")
class ReviewSource:
    item: Item = strawberry.field(description="The daily note or document.")
    role: ReviewSourceRole = strawberry.field(description="Which of the two it is.")
    ref: str = strawberry.field(description="The wikilink target the model was told to cite it by.")
    sent: bool = strawberry.field(description="False when it did not fit in the bounded request to the model.")
    truncated: bool = strawberry.field(description="Its text was cut to fit the per-item character cap.")
    cited: bool = strawberry.field(description="The review links to it (so it lists the review among its backlinks).")


@strawberry.type(description="A generated weekly review, saved through the note pipeline at `reviews/<week>` "
                             "(lower case, e.g. reviews/2026-w48).")
class WeeklyReviewPayload:
    note: Note = strawberry.field(description="The review note, saved at `reviews/<week>`.")
    week: str = strawberry.field(description="The ISO week, e.g. 2026-W48.")
    start_date: date = strawberry.field(description="Its Monday.")
    end_date: date = strawberry.field(description="Its Sunday.")
    created: bool = strawberry.field(description="False when an earlier review of the week was overwritten.")
    changed: bool = strawberry.field(description="False when the review came out the same as the stored one.")
    model: str = strawberry.field(description="The chat model that wrote it.")
    sources: list[ReviewSource] = strawberry.field(
        description="The week's daily notes, then the documents whose enrichment finished that week, as read "
                    "(at most 14 and 40).")
    left_out: int = strawberry.field(
        description="Sources of the week the model did not see: over the item caps or the character budget.")
    dropped_links: list[str] = strawberry.field(
        description="[[refs]] the model wrote to things it was not given; saved as plain text, not as links.")

    @classmethod
    def from_domain(cls, review: service.WeeklyReview) -> WeeklyReviewPayload:
        return cls(
            note=Note.from_domain(review.save.note), week=review.week, start_date=review.start,
            end_date=review.end, created=review.save.created, changed=review.save.body_changed, model=review.model,
            sources=[ReviewSource(item=item_type(s.item), role=s.role, ref=s.ref, sent=s.sent,
                                  truncated=s.truncated, cited=s.cited) for s in review.sources],
            left_out=review.left_out, dropped_links=review.dropped_links,
        )
