"""The inputs of a Bases-style property query: `notes(where: NoteWhere, orderBy: [NoteOrder!])`.

They are plain trees; services/note_query.py checks them (the same parser serves the MCP tool's JSON), so an
operator is a string here and an unknown one answers INVALID_INPUT naming where it is.
"""

from __future__ import annotations

import enum
from typing import Any

import strawberry
from strawberry.scalars import JSON


@strawberry.enum(description="A note field a property query may test or sort by (besides front-matter properties).")
class NoteField(enum.Enum):
    KIND = strawberry.enum_value("kind", description="note, daily, moc, literature, meeting or another kind.")
    TAG = strawberry.enum_value("tag", description="The note's tags, a list: eq / in mean the note carries it.")
    PINNED = strawberry.enum_value("pinned", description="True or false (a note never pinned is false).")
    TITLE = strawberry.enum_value("title", description="The title, compared and sorted as written.")
    SLUG = strawberry.enum_value("slug", description="The wikilink target, e.g. daily/2026-12-01.")
    NOTE_DATE = strawberry.enum_value("noteDate", description="The day the note is about; compare with an ISO date.")
    CREATED_AT = strawberry.enum_value("createdAt", description="Compare with an ISO date-time (UTC if no offset).")
    UPDATED_AT = strawberry.enum_value("updatedAt", description="Compare with an ISO date-time (UTC if no offset).")


@strawberry.enum(description="Sort order; missing values come last either way.")
class SortDirection(enum.Enum):
    ASC = strawberry.enum_value("ASC", description="Smallest first.")
    DESC = strawberry.enum_value("DESC", description="Largest first.")


@strawberry.input(description=(
    "A condition or a group of them. A condition: `property` (a front-matter name) or `field`, an `op`, and but "
    "for exists/missing a `value`; a group: exactly one of `and`, `or`, `not`. At most 5 levels deep and 20 "
    "conditions in all; else INVALID_INPUT naming the part (e.g. where.and[2].op)."))
class NoteWhere:
    and_: list[NoteWhere] | None = strawberry.field(name="and", default=None,
                                                   description="Every one of these holds.")
    or_: list[NoteWhere] | None = strawberry.field(name="or", default=None,
                                                  description="At least one of these holds.")
    not_: NoteWhere | None = strawberry.field(name="not", default=None, description="This does not hold.")
    property: str | None = strawberry.field(default=None, description=(
        "A front-matter property name, exactly as written (1-200 characters). A list property: eq / in mean it "
        "contains the value."))
    field: NoteField | None = strawberry.field(default=None, description="A note field instead of a property.")
    op: str | None = strawberry.field(default=None, description=(
        "eq, ne (a missing value counts as different), in, gt, gte, lt, lte (numbers with numbers, text with text: "
        "ISO dates in front matter compare as text), exists, missing."))
    value: JSON | None = strawberry.field(default=None, description=(
        "A string, number or boolean; for `in` a list of 1-100 of them; none for exists / missing."))

    def as_tree(self) -> dict[str, Any]:
        """The plain tree services/note_query.py reads (what the MCP tool is given)."""
        tree: dict[str, Any] = {}
        if self.and_ is not None:
            tree["and"] = [child.as_tree() for child in self.and_]
        if self.or_ is not None:
            tree["or"] = [child.as_tree() for child in self.or_]
        if self.not_ is not None:
            tree["not"] = self.not_.as_tree()
        for key in ("property", "op", "value"):
            if getattr(self, key) is not None:
                tree[key] = getattr(self, key)
        if self.field is not None:
            tree["field"] = self.field.value
        return tree


@strawberry.input(description="A sort key: a front-matter property or a note field (not `TAG`).")
class NoteOrder:
    property: str | None = strawberry.field(default=None, description="A front-matter property name.")
    field: NoteField | None = strawberry.field(default=None, description="A note field instead of a property.")
    direction: SortDirection | None = strawberry.field(default=SortDirection.ASC, description=(
        "ASC or DESC, nulls last either way; null or left out: ASC."))

    def as_tree(self) -> dict[str, Any]:
        tree: dict[str, Any] = {"direction": (self.direction or SortDirection.ASC).value}
        if self.property is not None:
            tree["property"] = self.property
        if self.field is not None:
            tree["field"] = self.field.value
        return tree
