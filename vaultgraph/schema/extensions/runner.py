"""strawberry's extension runner, asking only the extensions that have something to say.

For every result, strawberry's runner asks each extension of the operation for its results (`get_results`, one
coroutine each) and builds each one's `on_stream_result` hook. A subscription does that per event and per
subscriber, and most of the schema's ten or so extensions only validate: it was a fifth of a fan-out's CPU
(bench/README.md, fan-out). This runner asks only the extensions whose class overrides the hook. The base class's
hooks do nothing (`get_results` returns {}, `on_stream_result` yields), so every answer is the same, in the same
order; the schema hands it out through strawberry's own `Schema.create_extensions_runner`.
"""

from __future__ import annotations

import inspect
from typing import Any

from strawberry.extensions import SchemaExtension
from strawberry.extensions.context import StreamResultContextManager
from strawberry.extensions.runner import SchemaExtensionsRunner
from strawberry.types import ExecutionContext, StreamExecutionResult

_NO_RESULTS = SchemaExtension.get_results
_NO_STREAM_HOOK = SchemaExtension.on_stream_result


class LeanExtensionsRunner(SchemaExtensionsRunner):
    """`SchemaExtensionsRunner` over the extensions that override `get_results` or `on_stream_result`."""

    def __init__(self, execution_context: ExecutionContext, extensions: list[SchemaExtension] | None = None) -> None:
        super().__init__(execution_context, extensions)
        self._reporting = [e for e in self.extensions if type(e).get_results is not _NO_RESULTS]
        self._streaming = [e for e in self.extensions if type(e).on_stream_result is not _NO_STREAM_HOOK]

    def on_stream_result(self, result: StreamExecutionResult) -> StreamResultContextManager:
        return StreamResultContextManager(self._streaming, result)

    async def get_extensions_results(self, ctx: ExecutionContext) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for extension in self._reporting:
            results = extension.get_results()
            data.update(await results if inspect.isawaitable(results) else results)
        data.update(ctx.extensions_results)
        return data
