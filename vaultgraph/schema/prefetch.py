"""Link connections read ahead, with the note(s) that carry them, in one statement.

`note(slug) { backlinks { … } }` would otherwise cost one transaction for the note and one for its links, and a
page of notes with their backlink counts one for the page and one for the counts. The `note` and `notes` resolvers
look at their selection (`connection_asks`), read everything in one statement (services/whole_reads.py) and
prime the request's DataLoaders with the answers under the very keys `Item.outgoing`/`Item.backlinks` will ask
for (`prime`): those fields then resolve from the loaders' caches, exactly as if they had loaded.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from strawberry.types.nodes import SelectedField

from vaultgraph.schema.loaders import CountKey, Loaders, PageKey
from vaultgraph.services.whole_reads import ConnectionAnswer, ConnectionAsk, WholeReads

if TYPE_CHECKING:
    from vaultgraph.schema.use_cases import Services

_CONNECTIONS = {"outgoing": True, "backlinks": False}
_PAGE_FIELDS = frozenset({"edges", "nodes", "pageInfo"})
# The fields of a Note or Document that an item read without its text answers as a whole one would
# (graph/records.py ITEM_SUMMARY_FIELDS: stored properties, none of them text or parsed from it). Anything else
# (body, frontmatter, summary, content, a connection, …) reads the whole item.
SUMMARY_FIELDS = frozenset({
    "__typename", "id", "title", "scope", "agentId", "teamId", "slug", "kind", "tags", "noteDate", "pinned",
    "archivedAt", "createdByAgentId", "indexed", "createdAt", "updatedAt", "path", "docType", "category",
    "contentHash", "sizeBytes", "enrichment",
})
_ENDS = (("edges", "node", "from"), ("edges", "node", "to"), ("nodes", "from"), ("nodes", "to"))


def _fields(selections: Iterable[Any]) -> list[SelectedField]:
    """The fields of a selection set, through fragments."""
    found: list[SelectedField] = []
    for selection in selections:
        if isinstance(selection, SelectedField):
            found.append(selection)
        else:
            found += _fields(selection.selections)
    return found


def _children(fields: Iterable[SelectedField], *path: str) -> list[SelectedField]:
    """The fields under `path` (field names, through fragments) of these fields."""
    level = list(fields)
    for name in path:
        level = [child for field in level for child in _fields(field.selections) if child.name == name]
    return level


def connection_asks(item_fields: Iterable[Any]) -> list[ConnectionAsk]:
    """The `outgoing`/`backlinks` connections selected on an item (`item_fields`: the fields selecting the item),
    one per response key, with what each needs, in the way `schema/types/items.py`'s `_connection` decides it."""
    by_key: dict[str, list[SelectedField]] = {}
    for field in _fields(item_fields):
        for child in _fields(field.selections):
            if child.name in _CONNECTIONS:
                by_key.setdefault(child.alias or child.name, []).append(child)
    asks: list[ConnectionAsk] = []
    for fields in by_key.values():
        ends = [end for path in _ENDS for end in _children(fields, *path)]
        first = fields[0]  # fields of one response key have the same arguments (GraphQL validation)
        selected = {child.name for field in fields for child in _fields(field.selections)}
        page = bool(selected & _PAGE_FIELDS)
        count = "totalCount" in selected
        if not page and not count:
            continue
        arguments = _arguments(first.arguments)
        if arguments is None:
            continue
        types, size, after = arguments
        ask = ConnectionAsk(outgoing=_CONNECTIONS[first.name], types=types, first=size, after=after,
                            page=page, count=count, summaries=summary_enough(ends))
        if ask not in asks:
            asks.append(ask)
    # Two response keys with the same arguments share one loader key (`prime`): the whole items if either needs them.
    whole = {_page_of(a) for a in asks if not a.summaries}
    asks = [replace(a, summaries=False) if _page_of(a) in whole else a for a in asks]
    return [a for i, a in enumerate(asks) if a not in asks[:i]]


def summary_enough(item_fields: Iterable[Any]) -> bool:
    """Whether the fields selecting items (`item_fields`) ask only SUMMARY_FIELDS of them."""
    return all(child.name in SUMMARY_FIELDS for field in _fields(item_fields) for child in _fields(field.selections))


def _arguments(arguments: dict[str, Any]) -> tuple[list[str] | None, int | None, str | None] | None:
    """`types`, `first` and `after` as the resolver receives them (strawberry's selection leaves literals as their
    source text, variables coerced); None for anything else, which is then not read ahead (a missed read ahead
    only costs the usual transaction: the field loads as it always does)."""
    if arguments.get("last") is not None or arguments.get("before") is not None:
        return None  # paging backward (or up to a cursor) is read the usual way
    types, first, after = arguments.get("types"), arguments.get("first"), arguments.get("after")
    if isinstance(types, str):  # a single value where a list goes: GraphQL's input coercion makes it a list
        types = [types]
    if isinstance(first, str):
        try:
            first = int(first)
        except ValueError:
            return None
    if (types is not None and not (isinstance(types, list) and all(isinstance(t, str) for t in types))) or \
            (first is not None and not isinstance(first, int)) or (after is not None and not isinstance(after, str)):
        return None
    return (list(types) if types else None), first, after


def fields_at(selections: Iterable[Any], *path: str) -> list[SelectedField]:
    """The fields under `path` (field names) of a selection, through fragments."""
    return _children(_fields(selections), *path)


def page_item_fields(list_fields: Iterable[Any]) -> list[SelectedField]:
    """The fields selecting the items of a connection of items: its `edges { node }` and its `nodes`."""
    fields = _fields(list_fields)
    return _children(fields, "edges", "node") + _children(fields, "nodes")


def prime(loaders: Loaders, item_id: str, asks: Sequence[ConnectionAsk],
          answers: Sequence[ConnectionAnswer | None]) -> None:
    """Put the answers where the connection fields of `item_id` will look (see schema/types/items.py `_connection` and
    schema/types/links.py `LinkConnection`): a page with its total, a page alone, or a total alone."""
    for ask, answer in zip(asks, answers, strict=True):
        if answer is None:
            continue
        outgoing, types, first, after = _page_of(ask)
        if answer.page is not None and ask.count:
            loaders.link_pages_with_totals.prime(PageKey(item_id, outgoing, types, first, after), answer.page)
        elif answer.page is not None:
            loaders.link_pages.prime(PageKey(item_id, outgoing, types, first, after), answer.page)
        elif answer.total is not None:
            loaders.link_counts.prime(CountKey(item_id, outgoing, types), answer.total)


def _page_of(ask: ConnectionAsk) -> tuple[bool, tuple[str, ...] | None, int | None, str | None]:
    """What a connection's page is keyed by in the loaders (PageKey without the item): direction, types, window."""
    return ask.outgoing, tuple(ask.types) if ask.types else None, ask.first, ask.after


def whole_reads(services: Services) -> WholeReads:
    return WholeReads(services.notes.graph, services.notes.max_page_size)
