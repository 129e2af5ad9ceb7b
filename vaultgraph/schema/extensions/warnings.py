"""Warnings: things a client should know about an answer that is still an answer (e.g. hybrid search that fell
back to keywords because the embedding model is down). Resolvers call `info.context.warn(code, message)`; this
extension puts them in the response as `extensions.warnings: [{code, message}]`."""

from __future__ import annotations

from typing import Any

from strawberry.extensions import SchemaExtension


class Warnings(SchemaExtension):
    def get_results(self) -> dict[str, Any]:
        warnings = getattr(self.execution_context.context, "warnings", None)
        return {"warnings": list(warnings)} if warnings else {}
