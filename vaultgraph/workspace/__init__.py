"""The files on disk: `layout` (workspace path <-> owner, the one rule), `formats` (which files count as text),
`files` (the tenant's folder and safe reads and writes). The names below are re-exported for existing callers."""

from vaultgraph.workspace.files import Workspace, sha256_hex
from vaultgraph.workspace.layout import MAX_PATH_LENGTH, check_key, normalize_path, owner_prefix

__all__ = ["MAX_PATH_LENGTH", "Workspace", "check_key", "normalize_path", "owner_prefix", "sha256_hex"]
