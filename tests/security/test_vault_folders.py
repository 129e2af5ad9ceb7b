"""importVault/exportVault name folders on the server: a key may only use the folders the operator allowed."""

from __future__ import annotations

from pathlib import Path

import pytest

from vaultgraph.config import Settings
from vaultgraph.errors import Forbidden, InvalidInput
from vaultgraph.interop.vault import VaultService
from vaultgraph.runtime import vault_folders

pytestmark = pytest.mark.security


def service(folders: list[Path] | None) -> VaultService:
    # The folder check needs neither service; it runs before either is used.
    return VaultService(notes=None, documents=None, links=None, folders=folders)  # type: ignore[arg-type]


def test_only_configured_folders_and_their_subfolders_are_allowed(tmp_path: Path) -> None:
    allowed = tmp_path / "vaults"
    (allowed / "team").mkdir(parents=True)
    vault = service([allowed])
    assert vault.server_folder(str(allowed / "team")) == (allowed / "team").resolve()
    for outside in ("/etc", str(tmp_path), str(allowed / ".." / "elsewhere"), str(tmp_path / "vaults-other")):
        with pytest.raises(Forbidden, match="outside the folders"):
            vault.server_folder(outside)


def test_a_symlink_inside_an_allowed_folder_cannot_lead_out(tmp_path: Path) -> None:
    allowed = tmp_path / "vaults"
    allowed.mkdir()
    (allowed / "escape").symlink_to("/etc")
    with pytest.raises(Forbidden):
        service([allowed]).server_folder(str(allowed / "escape"))


def test_relative_paths_are_refused() -> None:
    with pytest.raises(InvalidInput):
        service(None).server_folder("vault/notes")


def test_a_server_with_keys_allows_no_folder_until_told() -> None:
    # Development mode: the data directory only (a page reaching the server through a browser must not read or
    # write the rest of the machine), unless the operator names folders.
    assert vault_folders(Settings(dev_mode=True, data_dir=Path("/d"))) == [Path("/d")]
    assert vault_folders(Settings(dev_mode=True, vault_dirs=[Path("/v")])) == [Path("/v")]
    assert vault_folders(Settings(dev_mode=False)) == []
    assert vault_folders(Settings(dev_mode=False, vault_dirs=[Path("/srv/vaults")])) == [Path("/srv/vaults")]
    with pytest.raises(Forbidden, match="VAULTGRAPH_VAULT_DIRS"):
        service([]).server_folder("/srv/vaults")
