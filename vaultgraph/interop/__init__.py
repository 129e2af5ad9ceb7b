"""Interop with other tools' formats: Obsidian vaults (import/export) and JSON Canvas."""
