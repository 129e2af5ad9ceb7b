"""strawberry's extension runner, asking only the extensions that have something to say.

For every operation strawberry's runner builds four lifecycle context managers (operation, parsing, validation,
execution), each asking every extension of the operation whether its class overrides the hook and wrapping the
ones that do in a fresh `contextlib.contextmanager` (a new function, `functools.update_wrapper` and all): for the
schema's ten or so extensions, a quarter of a `{ __typename }` request's own CPU (bench/README.md, the fixed cost).
For every result it asks each extension for its results (`get_results`, one coroutine each) and builds each one's
`on_stream_result` hook: per event and per subscriber in a subscription, a fifth of a fan-out's CPU.

This runner looks the hooks up once per list of extension classes (`_plan`), wraps them once (the class's
generator function made a context manager factory), and asks only the extensions whose class overrides the hook,
for the four stages and for each streamed result alike. The base class's hooks do nothing (`get_results` returns
{}, the others yield), and strawberry's own context managers still enter and leave the hooks, in the same order:
every answer is the same. The schema hands the runner out through strawberry's own
`Schema.create_extensions_runner`.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
from collections.abc import Callable
from functools import partial
from typing import Any, cast

from strawberry.extensions import SchemaExtension
from strawberry.extensions.context import (
    ExecutingContextManager,
    ExtensionContextManagerBase,
    OperationContextManager,
    ParsingContextManager,
    StreamResultContextManager,
    ValidationContextManager,
    WrappedHook,
)
from strawberry.extensions.runner import SchemaExtensionsRunner
from strawberry.types import ExecutionContext, StreamExecutionResult

_NO_RESULTS = SchemaExtension.get_results

# Per lifecycle stage and tuple of extension classes (an operation's extensions, in order): which of them override
# the stage's hook, each with a context manager factory taking the extension and whether it is async, or None for
# a hook that is a plain function (strawberry's own wrapping takes it, as it would).
_Step = tuple[int, Callable[[SchemaExtension], Any] | None, bool]


@functools.cache
def _plan(name: str, classes: tuple[type, ...]) -> tuple[_Step, ...]:
    steps: list[_Step] = []
    for index, cls in enumerate(classes):
        hook = getattr(cls, name)
        if hook is getattr(SchemaExtension, name):
            continue
        if inspect.isgeneratorfunction(hook):
            steps.append((index, contextlib.contextmanager(hook), False))
        elif inspect.isasyncgenfunction(hook):
            steps.append((index, contextlib.asynccontextmanager(hook), True))
        else:
            steps.append((index, None, False))
    return tuple(steps)


@functools.cache
def _reporting(classes: tuple[type, ...]) -> tuple[int, ...]:
    """Which of these extension classes override `get_results`."""
    return tuple(index for index, cls in enumerate(classes) if getattr(cls, "get_results", None) is not _NO_RESULTS)


@functools.cache
def _stream_hooks_act_on_errors_only(classes: tuple[type, ...]) -> bool:
    return all(_acts_on_errors_only(classes[index]) for index, _, _ in _plan(StreamResultContextManager.HOOK_NAME,
                                                                             classes))


def _acts_on_errors_only(cls: type) -> bool:
    """Whether the class that defines `cls`'s stream hook says the hook acts on errors only (a subclass overriding
    the hook does not inherit the promise)."""
    for klass in cls.__mro__:
        if "on_stream_result" in vars(klass):
            return bool(vars(klass).get("stream_hook_acts_on_errors_only", False))
    return False


def _hooks(kind: type[ExtensionContextManagerBase], extensions: list[SchemaExtension],
           classes: tuple[type, ...]) -> ExtensionContextManagerBase:
    """strawberry's context manager of this lifecycle stage, its hooks filled from the plan."""
    manager = kind.__new__(kind)
    manager.default_hook = getattr(SchemaExtension, kind.HOOK_NAME)
    hooks: list[WrappedHook] = []
    for index, factory, is_async in _plan(kind.HOOK_NAME, classes):
        extension = extensions[index]
        if factory is not None:
            hooks.append(WrappedHook(extension=extension, hook=partial(factory, extension), is_async=is_async))
        elif (wrapped := manager.get_hook(extension)) is not None:
            hooks.append(wrapped)
    manager.hooks = hooks
    return manager


class LeanExtensionsRunner(SchemaExtensionsRunner):
    """`SchemaExtensionsRunner` asking, at each stage, only the extensions whose class overrides its hook."""

    def __init__(self, execution_context: ExecutionContext, extensions: list[SchemaExtension] | None = None) -> None:
        super().__init__(execution_context, extensions)
        self._classes = tuple(type(e) for e in self.extensions)
        self._reporting = [self.extensions[index] for index in _reporting(self._classes)]

    def operation(self) -> OperationContextManager:
        return _hooks(OperationContextManager, self.extensions, self._classes)  # type: ignore[return-value]

    def validation(self) -> ValidationContextManager:
        return _hooks(ValidationContextManager, self.extensions, self._classes)  # type: ignore[return-value]

    def parsing(self) -> ParsingContextManager:
        return _hooks(ParsingContextManager, self.extensions, self._classes)  # type: ignore[return-value]

    def executing(self) -> ExecutingContextManager:
        return _hooks(ExecutingContextManager, self.extensions, self._classes)  # type: ignore[return-value]

    def on_stream_result(self, result: StreamExecutionResult) -> StreamResultContextManager:
        manager = cast(StreamResultContextManager, _hooks(StreamResultContextManager, self.extensions, self._classes))
        manager.result = result  # each hook is called with it, as strawberry's own __init__ sets it
        return manager

    def streams_results_unchanged(self) -> bool:
        """Whether a streamed result without errors would reach the transport as graphql-core made it: no extension
        with results to add now, and every `on_stream_result` hook one that acts on errors only (its class says so
        with `stream_hook_acts_on_errors_only`). The express (schema/extensions/broadcast.py) asks it."""
        if not _stream_hooks_act_on_errors_only(self._classes):
            return False
        if self.execution_context.extensions_results:
            return False
        for extension in self._reporting:
            results = extension.get_results()
            if not isinstance(results, dict):  # an awaitable: not known now
                if inspect.iscoroutine(results):
                    results.close()
                return False
            if results:
                return False
        return True

    async def get_extensions_results(self, ctx: ExecutionContext) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for extension in self._reporting:
            results = extension.get_results()
            if not isinstance(results, dict) and inspect.isawaitable(results):  # a dict, the common case, is not
                results = await results
            data.update(results)
        data.update(ctx.extensions_results)
        return data
