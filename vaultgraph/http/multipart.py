"""Multipart uploads (the GraphQL multipart request spec) read within the upload limits, and only from a client
that proved it is not a cross-site form.

Strawberry turns multipart on (`multipart_uploads_enabled`) but leaves CSRF to the server: a browser sends a
multipart POST to any site without asking (a "simple request"), so the view demands a header a browser never
adds on its own (`Apollo-Require-Preflight` or `X-Apollo-Operation-Name`, as Apollo Server and its clients do);
sending it from another origin needs a CORS preflight that this server never grants.

The count and per-file caps are enforced while the body streams: the part past the limit ends the parse (temporary
files closed) and the request answers 413 `LIMIT_EXCEEDED`. The body as a whole is capped by http/body_limit.py.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Mapping

from cross_web import FormData, StarletteRequestAdapter
from starlette.datastructures import FormData as StarletteFormData
from starlette.datastructures import Headers
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.requests import ClientDisconnect, Request
from starlette.types import Receive

from vaultgraph.http.refusals import Refusal
from vaultgraph.services.uploads import UploadLimits

PREFLIGHT_HEADERS = ("apollo-require-preflight", "x-apollo-operation-name")
DRAIN_BYTES = 1024 * 1024  # read (and drop) this much of a refused body, so the client gets to read the answer
MAX_FIELDS = 16  # `operations` and `map`; the spec has no other fields
FORM_STATE = "upload_form"  # request.state key: the parsed form, closed by the view when the request ends


class UploadLimitExceeded(MultiPartException):
    def __init__(self, message: str, limit: int) -> None:
        super().__init__(message)
        self.limit = limit


def is_multipart(headers: Mapping[str, str]) -> bool:
    return headers.get("content-type", "").split(";", 1)[0].strip().lower() == "multipart/form-data"


class Body:
    """The request body as the parser reads it, knowing whether it has all arrived: a refusal part way drains a
    bounded amount more, so the client, still sending, reads the answer instead of a connection reset."""

    def __init__(self, receive: Receive) -> None:
        self.receive = receive
        self.done = False

    async def stream(self) -> AsyncGenerator[bytes, None]:
        while not self.done:
            message = await self.receive()
            if message["type"] != "http.request":
                raise ClientDisconnect()
            self.done = not message.get("more_body", False)
            yield message.get("body", b"")

    async def drain(self, limit: int = DRAIN_BYTES) -> None:
        drained = 0
        while not self.done and drained < limit:
            message = await self.receive()
            if message["type"] != "http.request":
                return
            self.done = not message.get("more_body", False)
            drained += len(message.get("body", b""))


async def csrf_refusal(request: Request) -> Refusal | None:
    """A multipart POST without a preflight header is refused before its body is parsed."""
    if request.method != "POST" or not is_multipart(request.headers):
        return None
    if any(request.headers.get(name, "").strip() for name in PREFLIGHT_HEADERS):
        return None
    await Body(request.receive).drain()
    return Refusal(403, "FORBIDDEN", "a multipart upload must carry the header `Apollo-Require-Preflight: true` "
                   "(or a non-empty `X-Apollo-Operation-Name`); browsers never add it to a cross-site form, "
                   "which is how this server tells an upload from a forged request", {"Connection": "close"},
                   header="Apollo-Require-Preflight")


class LimitedMultiPartParser(MultiPartParser):
    """Starlette's parser, stopped at the part past the file count or the byte past a file's cap."""

    def __init__(self, headers: Headers, stream: AsyncGenerator[bytes, None], limits: UploadLimits) -> None:
        super().__init__(headers, stream, max_files=float("inf"), max_fields=MAX_FIELDS)
        self.limits = limits
        self._files_seen = 0
        self._file_bytes = 0

    def on_part_begin(self) -> None:
        super().on_part_begin()
        self._file_bytes = 0

    def on_headers_finished(self) -> None:
        super().on_headers_finished()
        if self._current_part.file is not None:
            self._files_seen += 1
            if self._files_seen > self.limits.max_files:
                raise UploadLimitExceeded(f"more than {self.limits.max_files} files; an upload carries at most "
                                          f"{self.limits.max_files}", self.limits.max_files)

    def on_part_data(self, data: bytes, start: int, end: int) -> None:
        if self._current_part.file is not None:
            self._file_bytes += end - start
            if self._file_bytes > self.limits.max_file_bytes:
                name = self._current_part.file.filename or "a file"
                raise UploadLimitExceeded(f"{name} is larger than {self.limits.max_file_bytes} bytes, the most a "
                                          "file may hold; nothing was stored", self.limits.max_file_bytes)
        super().on_part_data(data, start, end)


def upload_adapter(limits: UploadLimits) -> type[StarletteRequestAdapter]:
    """Strawberry's request adapter for Starlette, its form read by LimitedMultiPartParser."""

    class UploadRequestAdapter(StarletteRequestAdapter):
        async def get_form_data(self) -> FormData:
            request: Request = self._request
            body = Body(request.receive)
            parser = LimitedMultiPartParser(request.headers, body.stream(), limits)
            try:
                form: StarletteFormData = await parser.parse()
            except UploadLimitExceeded as exc:
                await body.drain()
                raise Refusal(413, "LIMIT_EXCEEDED", exc.message, {"Connection": "close"}, limit=exc.limit) from exc
            except MultiPartException as exc:
                await body.drain()
                raise Refusal(400, "INVALID_INPUT", f"the multipart body cannot be read: {exc.message}",
                              {"Connection": "close"}) from exc
            setattr(request.state, FORM_STATE, form)
            return FormData(files=form, form=form)

    return UploadRequestAdapter
