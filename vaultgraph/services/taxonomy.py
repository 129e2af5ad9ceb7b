"""The category taxonomy: EverOS's twenty defaults, editable per tenant in `<workspace>/<tenant>/.taxonomy.md`.

The file has EverOS's shape (YAML front matter, `kind: knowledge_taxonomy`, a list of `{id, description}`); it is
read again for every batch, so edits take effect without a restart. `Others` is always present as the fallback,
and a category given when the document was created wins over any pick.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import structlog

from vaultgraph.errors import InvalidInput
from vaultgraph.text.frontmatter import parse_frontmatter
from vaultgraph.workspace import check_key

log = structlog.get_logger(__name__)

TAXONOMY_FILE = ".taxonomy.md"
FALLBACK = "Others"
MAX_TAXONOMY_BYTES = 256 * 1024
_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,63}$")


@dataclass(frozen=True, slots=True)
class Category:
    id: str
    description: str


DEFAULT_CATEGORIES: tuple[Category, ...] = (
    Category("Technology", "CS, software, AI/ML, cloud, cybersecurity"),
    Category("Science", "Physics, chemistry, biology, astronomy"),
    Category("Medical", "Clinical medicine, drugs, public health"),
    Category("Finance", "Securities, banking, accounting, fintech"),
    Category("Legal", "Laws, contracts, compliance, IP"),
    Category("Education", "Teaching, curriculum, e-learning"),
    Category("Business", "Strategy, marketing, operations, HR"),
    Category("Engineering", "Mechanical, civil, electrical engineering"),
    Category("Arts", "Visual arts, music, literature, film"),
    Category("Sports", "Athletics, fitness, sports science"),
    Category("Travel", "Tourism, hospitality, transportation"),
    Category("Food", "Culinary, nutrition, food safety"),
    Category("Environment", "Climate, ecology, sustainability"),
    Category("Politics", "Government, international relations, policy"),
    Category("History", "Historical events, civilizations, historiography"),
    Category("Psychology", "Cognitive science, behavioral psychology, mental health"),
    Category("Agriculture", "Farming, crop science, agribusiness"),
    Category("RealEstate", "Property development, urban planning, housing"),
    Category("Media", "Journalism, social media, PR"),
    Category(FALLBACK, "Fallback for unclassified documents"),
)


@dataclass(frozen=True, slots=True)
class Taxonomy:
    categories: tuple[Category, ...]

    @property
    def ids(self) -> list[str]:
        return [category.id for category in self.categories]

    def spelling(self, name: str) -> str | None:
        """The taxonomy's spelling of `name` (case-insensitive), None when it names no category."""
        wanted = name.strip().casefold()
        return next((category.id for category in self.categories if category.id.casefold() == wanted), None)

    def pick(self, name: str | None) -> str:
        """The taxonomy's spelling of `name`, else the fallback."""
        return (self.spelling(name) if name else None) or FALLBACK

    def known(self, names: Sequence[str], field: str) -> list[str]:
        """The taxonomy's spelling of each name; INVALID_INPUT naming `field` and listing the categories when one
        names none of them (an unknown one would never match a filter nor the classifier's picks)."""
        unknown = [name for name in names if self.spelling(name) is None]
        if unknown:
            raise InvalidInput(field, f"{', '.join(map(repr, unknown))} {'is' if len(unknown) == 1 else 'are'} not "
                                      f"a category of this workspace; use one of {', '.join(self.ids)} "
                                      f"(or edit {TAXONOMY_FILE})")
        return [spelling for name in names if (spelling := self.spelling(name)) is not None]

    def choosable(self) -> tuple[Category, ...]:
        """Categories a classifier may pick; the fallback is what it gets when none fits."""
        return tuple(category for category in self.categories if category.id != FALLBACK)


DEFAULT_TAXONOMY = Taxonomy(DEFAULT_CATEGORIES)


def parse_taxonomy(text: str) -> Taxonomy:
    """Categories from a `.taxonomy.md`; ValueError when it holds none that are valid (a FrontmatterError, one,
    when its front matter is unreadable)."""
    meta: dict[str, Any] = parse_frontmatter(text)
    entries = meta.get("categories")
    if not isinstance(entries, list):
        raise ValueError("the front matter needs a `categories` list of {id, description}")
    seen: dict[str, Category] = {}
    for entry in entries:
        if isinstance(entry, dict) and isinstance(entry.get("id"), str) and _ID.match(entry["id"]):
            seen.setdefault(entry["id"].casefold(), Category(entry["id"], str(entry.get("description") or "")))
    if not seen:
        raise ValueError("no category with a valid id (a letter, then letters, digits, '_' or '-')")
    categories = list(seen.values())
    if FALLBACK.casefold() not in seen:
        categories.append(Category(FALLBACK, "Fallback for unclassified documents"))
    return Taxonomy(tuple(categories))


async def tenant_taxonomy(workspace_root: Path, tenant_id: str) -> Taxonomy:
    """The tenant's taxonomy, read from its workspace folder on every call (an edit needs no restart), off the
    event loop."""
    return await asyncio.to_thread(load_taxonomy, workspace_root / check_key(tenant_id, "tenant"))


def load_taxonomy(tenant_root: Path) -> Taxonomy:
    """The tenant's taxonomy file if there is a usable one, else the defaults (a broken file is logged)."""
    path = tenant_root / TAXONOMY_FILE
    try:
        if not path.is_file():
            return DEFAULT_TAXONOMY
        with path.open("rb") as handle:
            text = handle.read(MAX_TAXONOMY_BYTES).decode("utf-8")
        return parse_taxonomy(text)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        log.warning("taxonomy file unusable, using the defaults", path=str(path), reason=str(exc))
        return DEFAULT_TAXONOMY
