"""Which file a wikilink target names: Obsidian's rule for notes, GoClaw's order for workspace documents.

Both are pure: they choose among the paths they are given and touch no filesystem. Paths are vault- or
workspace-relative with ``/`` separators. Matching ignores case and a missing ``.md``; when two paths differ
only by case, the one spelled as the link is spelled wins.

The graph resolves in key space: ``link_key`` turns an authored target (``Target Note``, ``docs/Report.md``) into
its resolution key (``target-note``, ``docs/report``), the one thing binding, unbinding and ghosts compare; an
item is named by the keys its ``note_rank``/``document_rank`` accepts, and every key that names an item ends in the
item's ``key_name``. Both the outgoing pass (a link saved when its target exists) and the incoming pass (a target
saved after its links) rank with these two functions, so the graph does not depend on the order of writes.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from typing import Any

from vaultgraph.text.slugify import slugify

_NOTE_SUFFIX = ".md"


def _forms(linkpath: str) -> list[str]:
    """File paths a link path may name, the likelier first.

    ``[[x]]`` and ``[[x.md]]`` name the note ``x.md``; ``[[report.pdf]]`` names ``report.pdf`` first and the
    note ``report.pdf.md`` only failing that.
    """
    if linkpath[-3:].casefold() == _NOTE_SUFFIX:
        return [linkpath]
    has_extension = "." in posixpath.basename(linkpath).lstrip(".")
    with_suffix = linkpath + _NOTE_SUFFIX
    return [linkpath, with_suffix] if has_extension else [with_suffix, linkpath]


def _linkpath(target: str, folder: str) -> str | None:
    """The vault path a target spells: ``./`` and ``../`` relative to the source folder, ``/`` from the root."""
    linkpath = target.strip()
    if linkpath.startswith(("./", "../")):
        linkpath = posixpath.normpath(posixpath.join(folder, linkpath))
        if linkpath == ".." or linkpath.startswith("../"):
            return None  # above the vault root
    return linkpath.lstrip("/") or None


def _note_rank(linkpath: str, folder: str, path: str) -> tuple[Any, ...] | None:
    """Where ``path`` stands in Obsidian's order for ``linkpath`` (lower is better), or None if it is not named."""
    best: tuple[Any, ...] | None = None
    folded = path.casefold()
    for rank, form in enumerate(_forms(linkpath)):
        folded_form = form.casefold()
        if folded == folded_form:
            tier, spelled = 0, path == form
        elif folded == posixpath.join(folder, form).casefold():
            tier, spelled = 1, path.endswith(form)
        elif folded.endswith("/" + folded_form):
            tier, spelled = 2, path.endswith(form)
        else:
            continue
        key = (tier, len(path) if tier == 2 else 0, rank, not spelled, folded, path)
        if best is None or key < best:
            best = key
    return best


def resolve(target: str, source_path: str, vault_paths: Sequence[str]) -> str | None:
    """The vault path ``target`` (as parsed from a link in ``source_path``) resolves to, or None.

    Obsidian's order: the exact vault path; else that name in the source note's own folder; else the shortest
    path ending in that name (ties: fewer characters, then alphabetical, case-insensitively). An empty target
    (``[[#Heading]]``) is the source note itself.
    """
    if not target.strip():
        return source_path
    folder = posixpath.dirname(source_path)
    linkpath = _linkpath(target, folder)
    if linkpath is None:
        return None
    ranked = [key for path in vault_paths if (key := _note_rank(linkpath, folder, path)) is not None]
    return min(ranked)[-1] if ranked else None


def _workspace_rank(wanted: str, path: str) -> tuple[Any, ...] | None:
    """Where ``path`` stands in GoClaw's order for ``wanted`` (lower is better), or None if it is not named."""
    basename = posixpath.basename(wanted)
    for step, (candidate, by_basename) in enumerate(
        ((wanted, False), (wanted + _NOTE_SUFFIX, False), (basename, True), (basename + _NOTE_SUFFIX, True))
    ):
        name = posixpath.basename(path) if by_basename else path
        if candidate and name.casefold() == candidate.casefold():
            return (step, name != candidate, len(path), path.casefold(), path)
    return None


def resolve_workspace(target: str, paths: Sequence[str]) -> str | None:
    """Resolve a wikilink among workspace documents in GoClaw's order, or None.

    1. the exact path, 2. the path + ``.md``, 3. a document with the target's basename, 4. that basename + ``.md``.
    Each step ignores case but prefers an exact-case match; several basename matches give the shortest path.
    """
    wanted = target.strip().removeprefix("./").lstrip("/")
    if not wanted:
        return None
    ranked = [key for path in paths if (key := _workspace_rank(wanted, path)) is not None]
    return min(ranked)[-1] if ranked else None


# --- key space: what the graph stores and compares ------------------------------------------------------------

def link_key(target: str, source_folder: str = "") -> str | None:
    """The resolution key of an authored target: case and a final ``.md`` ignored, words in slug form (``Target
    Note`` and ``target-note.md`` are ``target-note``), ``./`` and ``../`` taken from ``source_folder`` (a key
    path). None when the target holds no letter or digit, or climbs above the root."""
    text = target.strip()
    if text[-3:].casefold() == _NOTE_SUFFIX:
        text = text[:-3]
    linkpath = _linkpath(text, source_folder)
    if linkpath is None:
        return None
    try:
        return slugify(linkpath)
    except ValueError:
        return None


def key_name(key: str) -> str:
    """The last segment of a key: every key that names an item ends in the item's name (candidates are looked up
    by it: a note's `slugName`, a document's `linkName`, a ghost's `name`)."""
    return key.rsplit("/", 1)[-1]


def document_key(path: str) -> str:
    """The key of a workspace path (``docs/Report.md`` → ``docs/report``, ``a/b.pdf`` → ``a/b-pdf``); the path
    itself when it holds no letter or digit."""
    return link_key(path) or path


def document_name(path: str) -> str:
    """The name of the document at ``path`` (its `linkName`): what every key naming it ends in."""
    return key_name(document_key(path))


def _keyed_path(path: str) -> str:
    # A document's path in key space, keeping a final .md apart so GoClaw's "path + .md" steps still apply.
    return document_key(path) + (_NOTE_SUFFIX if path[-3:].casefold() == _NOTE_SUFFIX else "")


def note_rank(key: str, source_key: str, slug: str) -> tuple[Any, ...] | None:
    """Obsidian's order over notes in key space: the note ``slug`` for a link ``key`` written in the item whose
    key path is ``source_key`` (lower is better), or None when the key does not name it."""
    return _note_rank(key, posixpath.dirname(source_key), slug + _NOTE_SUFFIX)


def document_rank(key: str, path: str) -> tuple[Any, ...] | None:
    """GoClaw's order over documents in key space (exact path, path + .md, basename, basename + .md): the
    document at ``path`` for a link ``key`` (lower is better), or None when the key does not name it."""
    return _workspace_rank(key, _keyed_path(path))
