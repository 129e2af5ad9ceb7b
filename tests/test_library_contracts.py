"""Contract tests for the private parts of strawberry and Starlette that vaultgraph still leans on, where no public
way exists (the driver's is tests/graph/test_driver_contract.py). Both libraries are pinned to a minor range in
pyproject.toml; each test fails loudly, naming the internal, when a release within it drops or changes it, instead
of vaultgraph silently losing what it bought. The last one holds the DOCX conversion to the libraries under
MarkItDown (lxml 6.2 broke it: every DOCX failed with "Could not find the body element")."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator

import pytest
import strawberry
from starlette.datastructures import Headers
from strawberry.extensions import SchemaExtension
from strawberry.extensions.runner import SchemaExtensionsRunner
from strawberry.types import ExecutionContext

from tests.support import office_files
from vaultgraph.http.multipart import LimitedMultiPartParser, UploadLimitExceeded
from vaultgraph.http.ws import _run_on
from vaultgraph.schema.extensions.errors import ErrorPolicy
from vaultgraph.schema.extensions.runner import LeanExtensionsRunner
from vaultgraph.schema.extensions.warnings import Warnings
from vaultgraph.schema.types.items import _selected_names
from vaultgraph.services.uploads import UploadLimits
from vaultgraph.workspace import convert


@strawberry.type
class Leaf:
    a: int = 1
    b: int = 2
    c: int = 3


@strawberry.type
class Query:
    @strawberry.field
    def names(self, info: strawberry.Info) -> Leaf:
        Query.seen = sorted(_selected_names(info))
        return Leaf()

    seen: strawberry.Private[list[str]] = strawberry.field(default_factory=list)


async def test_strawberry_info_still_carries_the_raw_field_nodes_and_fragments() -> None:
    # schema/types/items.py reads the selection off `info._raw_info` (graphql-core's GraphQLResolveInfo): its
    # `field_nodes` and `fragments`. strawberry's public `selected_fields` converts the whole sub-selection on every
    # call, once per item of a list.
    schema = strawberry.Schema(Query)
    result = await schema.execute("query { names { a ... on Leaf { b } ...More } } fragment More on Leaf { c }")
    assert result.errors is None, result.errors
    assert Query.seen == ["a", "b", "c"], "strawberry's Info._raw_info no longer gives field_nodes and fragments"


class Reports(SchemaExtension):
    def get_results(self) -> dict[str, object]:
        return {"reported": 1}


class Silent(SchemaExtension):
    def on_execute(self):  # type: ignore[no-untyped-def]
        yield


class LeanSchema(strawberry.Schema):
    runners: list[LeanExtensionsRunner] = []

    def create_extensions_runner(self, execution_context: ExecutionContext,
                                 extensions: list[SchemaExtension]) -> SchemaExtensionsRunner:
        runner = LeanExtensionsRunner(execution_context, extensions)
        LeanSchema.runners.append(runner)
        return runner


async def test_strawberry_still_takes_its_extension_runner_from_the_schema() -> None:
    # resolvers/root.py hands strawberry schema/extensions/runner.py's runner through Schema.create_extensions_runner,
    # which asks only the extensions overriding get_results or on_stream_result: the hook and the base class's
    # do-nothing hooks must still be there, and the answer's extensions the same as strawberry's own runner gives.
    LeanSchema.runners.clear()
    schema = LeanSchema(Query, extensions=[Reports, Silent])
    result = await schema.execute("query { names { a } }")
    assert result.errors is None, result.errors
    assert LeanSchema.runners, "strawberry no longer builds its extension runner through create_extensions_runner"
    assert result.extensions == {"reported": 1}
    [runner] = LeanSchema.runners
    assert [type(e) for e in runner._reporting] == [Reports]  # Silent inherits the base get_results


def _multipart(files: int) -> tuple[Headers, bytes]:
    boundary = "contractboundary"
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="operations"\r\n\r\n{{}}\r\n']
    parts += [f'--{boundary}\r\nContent-Disposition: form-data; name="f{i}"; filename="f{i}.txt"\r\n'
              f"Content-Type: text/plain\r\n\r\n{'x' * 10}\r\n" for i in range(files)]
    body = ("".join(parts) + f"--{boundary}--\r\n").encode()
    return Headers({"content-type": f"multipart/form-data; boundary={boundary}"}), body


async def _stream(body: bytes) -> AsyncGenerator[bytes, None]:
    yield body


@pytest.mark.parametrize(("files", "max_files", "max_file_bytes", "refused"), [
    (2, 2, 10, None), (3, 2, 10, "more than 2 files"), (1, 5, 9, "larger than 9 bytes"),
])
async def test_starlettes_parser_still_says_which_part_is_a_file(files: int, max_files: int, max_file_bytes: int,
                                                                  refused: str | None) -> None:
    # http/multipart.py counts files and their bytes while the body streams, through MultiPartParser's
    # `_current_part.file` (set once a part's headers name a filename); Starlette has no public hook for it.
    headers, body = _multipart(files)
    limits = UploadLimits(max_files=max_files, max_file_bytes=max_file_bytes, max_body_bytes=1 << 20)
    parser = LimitedMultiPartParser(headers, _stream(body), limits)
    if refused is None:
        form = await parser.parse()
        try:
            assert sorted(form.keys()) == ["f0", "f1", "operations"]
        finally:
            await form.close()
        return
    with pytest.raises(UploadLimitExceeded, match=refused):
        await parser.parse()


NO_FORMATS = "the formats extra is not installed: pip install -e '.[formats]'"


@pytest.mark.skipif(not convert.converts(".docx"), reason=NO_FORMATS)
def test_a_docx_still_converts_to_markdown_through_markitdown() -> None:
    markdown = convert.to_markdown(".docx", office_files.docx("Onboarding", ["Badges are issued on day one."]))
    assert "# Onboarding" in markdown and "Badges are issued on day one." in markdown


class Counted(SchemaExtension):
    """Every lifecycle hook in each of the forms strawberry accepts: generator, async generator, plain function."""

    seen: list[str] = []

    def on_operation(self):  # type: ignore[no-untyped-def]
        Counted.seen.append("operation in")
        yield
        Counted.seen.append("operation out")

    async def on_parse(self):  # type: ignore[no-untyped-def]
        Counted.seen.append("parse in")
        yield
        Counted.seen.append("parse out")

    def on_validate(self) -> None:  # type: ignore[override]
        Counted.seen.append("validate")

    def on_execute(self):  # type: ignore[no-untyped-def]
        Counted.seen.append("execute in")
        yield
        Counted.seen.append("execute out")


async def test_the_lean_runner_enters_every_lifecycle_hook_as_strawberry_does() -> None:
    # schema/extensions/runner.py builds strawberry's lifecycle context managers from hooks it looked up once per
    # extension class: every form of hook must still run, in strawberry's order, as strawberry's own runner runs them.
    orders = []
    for schema_class in (LeanSchema, strawberry.Schema):
        Counted.seen = []
        result = await schema_class(Query, extensions=[Silent, Counted]).execute("query { names { a } }")
        assert result.errors is None, result.errors
        orders.append(Counted.seen)
    assert orders[0] == orders[1] == ["operation in", "parse in", "parse out", "validate", "execute in",
                                      "execute out", "operation out"]


class StreamCounted(SchemaExtension):
    seen: list[str] = []

    def on_stream_result(self, result):  # type: ignore[no-untyped-def]
        StreamCounted.seen.append(f"in {result.data}")
        yield
        StreamCounted.seen.append("out")


@strawberry.type
class Ticks:
    @strawberry.subscription
    async def ticks(self) -> AsyncGenerator[int, None]:
        for tick in range(3):
            yield tick


async def test_the_lean_runner_wraps_each_streamed_result_as_strawberry_does() -> None:
    # The lean runner builds each result's on_stream_result context manager from its plan too (one per delivery of
    # every subscriber): the hook sees each result, in order, as under strawberry's own runner.
    orders = []
    for schema_class in (LeanSchema, strawberry.Schema):
        StreamCounted.seen = []
        schema = schema_class(Query, subscription=Ticks, extensions=[Silent, StreamCounted])
        stream = await schema.subscribe("subscription { ticks }")
        assert not isinstance(stream, strawberry.types.ExecutionResult)
        results = [result async for result in stream]
        assert [result.data for result in results] == [{"ticks": 0}, {"ticks": 1}, {"ticks": 2}]
        orders.append(StreamCounted.seen)
    assert orders[0] == orders[1] == ["in {'ticks': 0}", "out", "in {'ticks': 1}", "out", "in {'ticks': 2}", "out"]


class MappingResults(SchemaExtension):
    def get_results(self):  # type: ignore[no-untyped-def]
        import types

        return types.MappingProxyType({"report": 1})


async def test_the_lean_runner_takes_any_mapping_of_results() -> None:
    # strawberry's runner awaits only an awaitable; a Mapping that is not a dict is merged as it is.
    for schema_class in (LeanSchema, strawberry.Schema):
        result = await schema_class(Query, extensions=[MappingResults]).execute("query { names { a } }")
        assert result.errors is None and result.extensions == {"report": 1}


class OwnStreamHook(ErrorPolicy):
    """Overrides the hook ErrorPolicy vouches for: the promise that it acts on errors only is not inherited."""

    def on_stream_result(self, result):  # type: ignore[no-untyped-def]
        yield


class WarnedContext:
    def __init__(self, warnings: list[dict[str, str]]) -> None:
        self.warnings = warnings


async def test_the_lean_runner_says_when_a_streamed_result_would_go_out_unchanged() -> None:
    # The express (schema/extensions/broadcast.py) writes a live event's result itself only when strawberry would
    # have sent it as graphql-core made it: no extension adds results, no stream hook but one acting on errors only.
    cases = [([ErrorPolicy, Warnings], [], True), ([ErrorPolicy, Warnings], [{"code": "X", "message": "m"}], False),
             ([ErrorPolicy, StreamCounted], [], False), ([Reports], [], False), ([MappingResults], [], False),
             ([OwnStreamHook], [], False)]
    for extensions, warnings, unchanged in cases:
        LeanSchema.runners.clear()
        schema = LeanSchema(Query, subscription=Ticks, extensions=extensions)
        stream = await schema.subscribe("subscription { ticks }", context_value=WarnedContext(warnings))
        assert not isinstance(stream, strawberry.types.ExecutionResult)
        first = await anext(stream)
        assert first.data == {"ticks": 0}
        [runner] = LeanSchema.runners
        assert runner.streams_results_unchanged() is unchanged, (extensions, warnings)
        await stream.aclose()


async def test_a_send_stepped_once_runs_on_to_its_end_as_a_task_would() -> None:
    # http/ws.py steps a socket write once in the bus's callback; a write that waits (the socket's buffer full, as
    # uvicorn's send waits for `writable`) runs on in `_run_on`, which must resume and cancel it as a task would.
    writable = asyncio.Event()
    done: list[str] = []

    async def send(name: str) -> None:
        try:
            await writable.wait()
            await asyncio.sleep(0)  # a bare yield after a future
            done.append(name)
        finally:
            done.append(f"{name} left")

    first = send("first")
    waiting = first.send(None)
    running = asyncio.ensure_future(_run_on(first, waiting))
    await asyncio.sleep(0.01)
    assert done == []
    writable.set()
    await running
    assert done == ["first", "first left"]

    writable.clear()
    second = send("second")
    waiting = second.send(None)
    running = asyncio.ensure_future(_run_on(second, waiting))
    await asyncio.sleep(0.01)
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running
    assert done[-1] == "second left" and "second" not in done
