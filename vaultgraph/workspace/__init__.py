"""The files on disk: `layout` (workspace path <-> owner, the one rule), `formats` (which files count as text),
`files` (the tenant's folder and safe reads and writes). The names below are re-exported for existing callers."""

from vaultgraph.workspace.files import Workspace, sha256_hex
from vaultgraph.workspace.layout import (
    MAX_PATH_LENGTH,
    check_document_path,
    check_key,
    normalize_path,
    owner_of_place,
    owner_prefix,
    place_of,
)

__all__ = ["MAX_PATH_LENGTH", "Workspace", "check_document_path", "check_key", "normalize_path", "owner_of_place",
           "owner_prefix", "place_of", "sha256_hex"]
