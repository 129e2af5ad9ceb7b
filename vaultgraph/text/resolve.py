"""Which file a wikilink target names: Obsidian's rule for notes, GoClaw's order for workspace documents.

Both are pure: they choose among the paths they are given and touch no filesystem. Paths are vault- or
workspace-relative with ``/`` separators. Matching ignores case and a missing ``.md``; when two paths differ
only by case, the one spelled as the link is spelled wins.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence

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
    best: tuple[int, int, int, bool, str, str] | None = None
    for rank, form in enumerate(_forms(linkpath)):
        folded_form = form.casefold()
        beside_source = posixpath.join(folder, form).casefold()
        for path in vault_paths:
            folded = path.casefold()
            if folded == folded_form:
                tier, spelled = 0, path == form
            elif folded == beside_source:
                tier, spelled = 1, path.endswith(form)
            elif folded.endswith("/" + folded_form):
                tier, spelled = 2, path.endswith(form)
            else:
                continue
            length = len(path) if tier == 2 else 0
            key = (tier, length, rank, not spelled, folded, path)
            if best is None or key < best:
                best = key
    return best[-1] if best else None


def _pick(paths: Sequence[str], wanted: str, *, by_basename: bool) -> str | None:
    """The path equal to ``wanted`` (or whose basename is), exact case first, then the shortest."""
    folded = wanted.casefold()
    candidates = [path for path in paths if (posixpath.basename(path) if by_basename else path).casefold() == folded]
    if not candidates:
        return None
    return min(
        candidates,
        key=lambda p: ((posixpath.basename(p) if by_basename else p) != wanted, len(p), p.casefold(), p),
    )


def resolve_workspace(target: str, paths: Sequence[str]) -> str | None:
    """Resolve a wikilink among workspace documents in GoClaw's order, or None.

    1. the exact path, 2. the path + ``.md``, 3. a document with the target's basename, 4. that basename + ``.md``.
    Each step ignores case but prefers an exact-case match; several basename matches give the shortest path.
    """
    wanted = target.strip().removeprefix("./").lstrip("/")
    if not wanted:
        return None
    basename = posixpath.basename(wanted)
    for candidate, by_basename in (
        (wanted, False),
        (wanted + _NOTE_SUFFIX, False),
        (basename, True),
        (basename + _NOTE_SUFFIX, True),
    ):
        if candidate and (found := _pick(paths, candidate, by_basename=by_basename)):
            return found
    return None
