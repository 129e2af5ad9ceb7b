"""Arguments several fields share, with their one description each: the page arguments of every connection and
the link-type filter."""

from __future__ import annotations

from typing import Annotated, TypeAlias

import strawberry

from vaultgraph.domain import Scope

PAGE_BOUND = "1 to the server's page maximum (VAULTGRAPH_PAGE_SIZE_MAX, 100 by default); INVALID_INPUT outside it"

First: TypeAlias = Annotated[int | None, strawberry.argument(description=(
    f"Items of this page, counted from the start (or from `after`); 20 by default, {PAGE_BOUND}."))]
After: TypeAlias = Annotated[str | None, strawberry.argument(description=(
    "Start after this cursor (an edge's `cursor` or `pageInfo.endCursor`); a cursor this API did not return is "
    "INVALID_INPUT."))]
Last: TypeAlias = Annotated[int | None, strawberry.argument(description=(
    f"Items of this page, counted back from the end (or from `before`): Relay's backward paging; {PAGE_BOUND}. "
    "With `first` too: INVALID_INPUT."))]
Before: TypeAlias = Annotated[str | None, strawberry.argument(description=(
    "End before this cursor (an edge's `cursor` or `pageInfo.startCursor`); a cursor this API did not return is "
    "INVALID_INPUT."))]
LinkTypes: TypeAlias = Annotated[list[str] | None, strawberry.argument(description=(
    "Only links of these types (WIKILINK, REFERENCES, … or an UPPER_SNAKE type of at most 50 characters); "
    "INVALID_INPUT for another spelling. Null or empty: every type."))]
ScopeFilter: TypeAlias = Annotated[Scope | None, strawberry.argument(description=(
    "Only items of this scope; null: every scope your key can read."))]
ItemTypes: TypeAlias = Annotated[list[str] | None, strawberry.argument(description=(
    "Item types (Document, Note), document types or note kinds; an item matching any of them (at most 50)."))]

# The owner of a new item, as createDocument, saveNote and uploadDocuments take it.
OWNER_SCOPE = "Whose space it goes in; FORBIDDEN for a space your key cannot write."
OWNER_AGENT = "The owning agent; required for PERSONAL (INVALID_INPUT otherwise)."
OWNER_TEAM = "The owning team; required for TEAM (INVALID_INPUT otherwise)."
