"""Helpers for tests that authenticate with API keys."""

from __future__ import annotations


def bearer(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}
