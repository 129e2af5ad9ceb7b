"""What a vault file says about its note beyond its body: the `vaultgraph:` frontmatter key an export adds, and the
plain properties Obsidian users write (`kind`, `date`, `pinned`).

An export adds one `vaultgraph:` mapping as the first key of the frontmatter (making one when the body has none),
holding only what the file would not otherwise give back: the title when the file name cannot carry it, the slug
when the path would make another, kind, date and pinned when the body's own properties say otherwise, when it was
archived, and its typed (non-wikilink) links. Import takes those lines out again, so the note's body comes back
byte for byte; the key wins over the plain properties, which win over the defaults.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date
from typing import Any

import yaml  # type: ignore[import-untyped,unused-ignore]  # PyYAML ships no stubs; types-PyYAML is optional

from vaultgraph.errors import InvalidInput
from vaultgraph.services.note_drafts import frontmatter_properties
from vaultgraph.text.frontmatter import find_frontmatter

KEY = "vaultgraph"
_KEY_LINE = re.compile(rf"^{KEY}:[^\n]*(?:\n|\Z)", re.MULTILINE)
_CONTINUATION = re.compile(r"(?:[ \t][^\n]*(?:\n|\Z))*")


# Characters YAML reads as line breaks. A string holding one is written double-quoted, where each is an escape
# (\n, \r, \N, \L, \P): in a plain or single-quoted scalar the last three fold to a space on the way back, and a
# scalar over several lines would break `split_block`, which takes the key's lines out as lines.
_LINE_BREAKS = ("\n", "\r", "\x85", "\u2028", "\u2029")


class _Dumper(yaml.SafeDumper):
    pass


def _str(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    if any(c in data for c in _LINE_BREAKS):
        return dumper.represent_scalar("tag:yaml.org,2002:str", data, style='"')
    return dumper.represent_str(data)


_Dumper.add_representer(str, _str)


def add_block(body: str, meta: dict[str, Any]) -> str:
    """`body` with `meta` as the `vaultgraph:` key of its frontmatter (the body itself when `meta` is empty and the
    body holds no such key of its own, which import would otherwise take for the export's)."""
    span = find_frontmatter(body)
    if not meta and (span is None or _KEY_LINE.search(body, span.yaml_start, span.yaml_end) is None):
        return body
    # One line, a flow mapping: a block over several lines would take the author's indented lines after it (a
    # frontmatter may start indented) for its own on the way back.
    flow = yaml.dump(meta, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=1 << 30, default_flow_style=True)
    block = f"{KEY}: {flow.strip()}\n"
    if span is None or span.yaml_start == span.yaml_end:
        # A frontmatter of its own (before an empty one), which import drops again whole.
        return f"---\n{block}---\n{body}"
    return body[: span.yaml_start] + block + body[span.yaml_start :]


def split_block(text: str) -> tuple[str, dict[str, Any]]:
    """The body without the `vaultgraph:` key an export added, and that key's mapping ({} when there is none).
    INVALID_INPUT when the key's lines are not YAML."""
    span = find_frontmatter(text)
    if span is None:
        return text, {}
    found = _KEY_LINE.search(text, span.yaml_start, span.yaml_end)
    if found is None:
        return text, {}
    if text[found.start() + len(KEY) + 1 : found.end()].lstrip().startswith("{"):
        end = min(found.end(), span.yaml_end)  # an export's key: one line, a flow mapping
    else:
        rest = _CONTINUATION.match(text, found.end())  # a block mapping over several lines
        end = min(rest.end() if rest else found.end(), span.yaml_end)
    try:
        # TODO(text-parse): use text/frontmatter's one parser (and catch its FrontmatterError) once it lands.
        loaded = yaml.safe_load(text[found.start() : end])
    except (yaml.YAMLError, RecursionError) as exc:
        raise InvalidInput("body", f"the {KEY} frontmatter key is not valid YAML: {exc}".splitlines()[0]) from exc
    meta = loaded.get(KEY) if isinstance(loaded, dict) else None
    if not isinstance(meta, dict):
        return text, {}  # a property of the author's that happens to share the name: part of the body
    body = text[: found.start()] + text[end:]
    remaining = find_frontmatter(body)
    if remaining is not None and remaining.yaml_start == remaining.yaml_end and remaining.yaml_start == span.yaml_start:
        body = body[remaining.end :]  # the export made this frontmatter for the key alone
    return body, meta


def _as_date(value: object) -> date | None:
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        try:
            return date.fromisoformat(value.strip()[:10])
        except ValueError:
            return None
    return None


@dataclass(frozen=True, slots=True)
class Stated:
    """What a file states about its note; None where it says nothing (a new note takes the default, an existing
    one keeps its value)."""

    kind: str | None = None
    note_date: date | None = None
    dated: bool = False  # whether `note_date` is stated (a stated null clears the note's date)
    pinned: bool | None = None
    title: str | None = None
    slug: str | None = None
    archived: bool | None = None


def from_properties(props: dict[str, Any]) -> Stated:
    """What a note's own frontmatter properties say: `kind` (a string), `date` (an ISO date), `pinned` (a boolean)."""
    kind, pinned, day = props.get("kind"), props.get("pinned"), _as_date(props.get("date"))
    return Stated(kind=kind.strip() if isinstance(kind, str) and kind.strip() else None, note_date=day,
                  dated=day is not None, pinned=pinned if isinstance(pinned, bool) else None)


def stated(body: str, meta: dict[str, Any]) -> Stated:
    """The block over the body's properties. INVALID_INPUT for frontmatter that is not YAML (the save would refuse
    it too)."""
    base = from_properties(frontmatter_properties(body))
    kind, title, slug = meta.get("kind"), meta.get("title"), meta.get("slug")
    pinned, archived = meta.get("pinned"), meta.get("archived")
    return Stated(
        kind=kind if isinstance(kind, str) and kind.strip() else base.kind,
        note_date=_as_date(meta["date"]) if "date" in meta else base.note_date,
        dated="date" in meta or base.dated,
        pinned=pinned if isinstance(pinned, bool) else base.pinned,
        title=title if isinstance(title, str) and title.strip() else None,
        slug=slug if isinstance(slug, str) and slug.strip() else None,
        archived=bool(archived) if "archived" in meta else None,
    )


# The typed links of files that hold no frontmatter (an image, a CSV): one JSON file at the vault's root, in a hidden
# folder Obsidian and the import's walk leave alone, {"version": 1, "links": {<vault path>: [<link entries>]}}.
LINKS_FILE = f".{KEY}/links.json"


def links_file(entries: dict[str, list[dict[str, Any]]]) -> bytes:
    return json.dumps({"version": 1, "links": entries}, ensure_ascii=False, indent=1, sort_keys=True).encode("utf-8")


def read_links_file(data: bytes) -> dict[str, object]:
    """The vault path -> link entries of a links file; INVALID_INPUT naming the file when it is not one."""
    try:
        parsed = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InvalidInput(LINKS_FILE, f"not JSON: {exc}") from exc
    if not isinstance(parsed, dict) or parsed.get("version") != 1 or not isinstance(parsed.get("links"), dict):
        raise InvalidInput(LINKS_FILE, 'expected {"version": 1, "links": {<vault path>: [...]}}')
    return {str(path): entries for path, entries in parsed["links"].items()}
