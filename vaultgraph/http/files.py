"""GET /files/{id}: a document's bytes as stored, so the explorer can show an attachment (an image, an SVG drawn as
an image) or offer it as a download. Admission and visibility are GraphQL's: an API key (or development mode), and
a document the caller cannot see is NOT_FOUND, as `node(id:)` would say. The answer can never act as a page of
this origin: its type comes from its name (never sniffed), anything but an image is a download, and a CSP sandbox
lets nothing in it run (an SVG or HTML file opened directly included)."""

from __future__ import annotations

import mimetypes
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from vaultgraph.errors import AppError
from vaultgraph.http.auth import Authenticator
from vaultgraph.http.refusals import Refusal
from vaultgraph.services.documents import DocumentService

FILE_CSP = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox"


class DocumentFiles:
    """ASGI app for GET /files/{id}."""

    def __init__(self, authenticator: Authenticator, documents: DocumentService) -> None:
        self.authenticator = authenticator
        self.documents = documents

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = await self.answer(Request(scope, receive))
        await response(scope, receive, send)

    async def answer(self, request: Request) -> Response:
        try:
            principal = await self.authenticator.http(request)
        except Refusal as exc:
            return exc.response()
        try:
            document = await self.documents.get(principal, request.path_params["id"])
            data = await self.documents.read_bytes(principal, document)
        except AppError as exc:
            return Refusal.from_error(exc).response()
        media = mimetypes.guess_type(document.path)[0] or "application/octet-stream"
        name = document.path.rsplit("/", 1)[-1]
        disposition = "inline" if media.startswith("image/") else "attachment"
        return Response(data, media_type=media, headers={
            "Content-Disposition": f"{disposition}; filename*=UTF-8''{quote(name)}",
            "Content-Security-Policy": FILE_CSP,
            "Cache-Control": "private, no-cache",  # the file may change under the same id: revalidate
        })
