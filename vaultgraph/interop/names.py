"""Where an item lives in an exported Obsidian vault: one rule for the export's files and a JSON Canvas's `file`.

The owner's folder comes first, as in the workspace (`agents/<id>/…` personal, `teams/<id>/…` team, else shared),
so a shared and a personal note that share a title never share a file, and import puts each back in its scope.
Inside it: a note's vault path (where it came from), else its slug's folders and its title's last segment; a
document's path.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import PurePosixPath

from vaultgraph.domain import Document, Item, Note, Owner
from vaultgraph.errors import InvalidInput
from vaultgraph.workspace import owner_of_place, owner_prefix

# Characters Obsidian refuses in a file name (and `/`, which separates folders), and control characters (a NUL is
# in no file name at all): the title a name cannot carry is kept in the file's frontmatter (interop/vault_meta.py).
_FORBIDDEN = frozenset('\\/:*?"<>|#^[]') | {chr(c) for c in range(32)} | {"\x7f"}
# File systems take 255 bytes a name: room for the `.md` and a ` 99` an export may add to make it unique.
MAX_NAME_BYTES = 240


def in_owner_space(owner: Owner, inner: str) -> str:
    """The vault path of `inner`, a path inside the owner's space."""
    prefix = owner_prefix(owner)
    return f"{prefix}/{inner}" if prefix else inner


def is_markdown(relative: str) -> bool:
    """A vault file holding markdown (a note, or a markdown document with its frontmatter), by its name."""
    return relative.lower().endswith(".md")


def split_owner(relative: str) -> tuple[Owner, str]:
    """The owner a vault path implies and the path inside that owner's space (INVALID_INPUT for a bad id): the
    workspace's one rule, so an exported vault lays its owners out as the workspace does."""
    return owner_of_place(relative)


def _note_inner(note: Note) -> str:
    if note.vault_path:
        return note.vault_path
    folder = note.slug.rsplit("/", 1)[0] + "/" if "/" in note.slug else ""
    # A `/` in a title is a folder (as the slug says): the file takes the title's last segment.
    last = note.title.rsplit("/", 1)[-1]
    name = "".join(c for c in last if c not in _FORBIDDEN).strip() or note.slug.rsplit("/", 1)[-1]
    return f"{folder}{_fit(name)}.md"


def _fit(name: str) -> str:
    """`name` cut to MAX_NAME_BYTES of UTF-8 (whole characters)."""
    data = name.encode("utf-8")
    return name if len(data) <= MAX_NAME_BYTES else data[:MAX_NAME_BYTES].decode("utf-8", "ignore").rstrip()


def _stays_with(owner: Owner, relative: str) -> bool:
    try:
        return split_owner(relative)[0] == owner
    except InvalidInput:
        return False


def vault_file(item: Item) -> str:
    """The path `item` has in an exported vault (before any rename the export's report lists)."""
    inner = item.path if isinstance(item, Document) else _note_inner(item)
    relative = in_owner_space(item.owner, inner)
    if isinstance(item, Note) and not _stays_with(item.owner, relative):
        # A shared note titled `agents/x/…` would come back as x's: flatten its folders (its slug is kept apart).
        relative = in_owner_space(item.owner, _fit(item.slug.replace("/", "-")) + ".md")
    return relative


def unique_names(wanted: Iterable[str]) -> list[str]:
    """Each wanted path, or the first free `<stem> N<suffix>` (N from 2) where an earlier one holds it. Compared
    without case, as Obsidian resolves links and as macOS and Windows name files."""
    taken: set[str] = set()
    names: list[str] = []
    for path in wanted:
        name, n = path, 1
        while name.casefold() in taken:
            n += 1
            pure = PurePosixPath(path)
            name = str(pure.with_name(f"{pure.stem} {n}{pure.suffix}"))
        taken.add(name.casefold())
        names.append(name)
    return names
