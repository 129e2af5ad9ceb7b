"""The README stays true: every setting appears in its configuration table."""

from __future__ import annotations

from pathlib import Path

from vaultgraph.config import Settings

README = Path(__file__).resolve().parents[1] / "README.md"


def _env_names() -> list[str]:
    names = []
    for name, field in Settings.model_fields.items():
        alias = field.validation_alias
        choices = getattr(alias, "choices", None)
        names.append(str(choices[0]) if choices else f"VAULTGRAPH_{name.upper()}")
    return names


def test_every_setting_is_documented() -> None:
    text = README.read_text()
    missing = [name for name in _env_names() if f"`{name}`" not in text]
    assert not missing, f"add these settings to the README's configuration table: {missing}"
