"""HTTP/1.1 by hand over a real socket, for what httpx will not do: stop half way through a body, close the
connection before the answer, send headers and wait, stream a body while watching for an early answer."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

BOUNDARY = "vaultgraphrawboundary"
UPLOAD = "mutation($files: [Upload!]!) { uploadDocuments(files: $files) { files { path status } } }"


@dataclass
class RawResponse:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Connection:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter

    async def send(self, data: bytes) -> None:
        self.writer.write(data)
        await self.writer.drain()

    async def received(self) -> bytes:
        """Everything the server sends until it closes the connection. A server that closes with part of our
        body unread resets the connection (RST); what it sent before that is still what it answered."""
        data = bytearray()
        with contextlib.suppress(ConnectionError):
            while block := await self.reader.read(65536):
                data += block
        return bytes(data)

    async def response(self, within: float = 30.0) -> RawResponse:
        """The answer (every request here says `Connection: close`)."""
        return parse_response(await asyncio.wait_for(self.received(), within))

    async def close(self) -> None:
        """Close at once, whatever is in flight (the client going away)."""
        self.writer.close()
        with contextlib.suppress(OSError):
            await self.writer.wait_closed()


@contextlib.asynccontextmanager
async def connect(url: str) -> AsyncIterator[Connection]:
    parts = urlsplit(url)
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    connection = Connection(reader, writer)
    try:
        yield connection
    finally:
        await connection.close()


def head(method: str, path: str, headers: Mapping[str, str]) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", "Connection: close",
             *(f"{name}: {value}" for name, value in headers.items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def parse_response(raw: bytes) -> RawResponse:
    while raw.startswith(b"HTTP/1.1 1"):  # an interim answer (100 Continue) before the real one
        raw = raw.split(b"\r\n\r\n", 1)[1]
    header_block, _, body = raw.partition(b"\r\n\r\n")
    status_line, *lines = header_block.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    if headers.get("transfer-encoding") == "chunked":
        body = _dechunk(body)
    return RawResponse(int(status_line.split()[1]), headers, body)


def _dechunk(body: bytes) -> bytes:
    out = bytearray()
    while body:
        size_line, _, rest = body.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            break
        out += rest[:size]
        body = rest[size + 2:]
    return bytes(out)


def chunk(data: bytes) -> bytes:
    """One chunk of a `Transfer-Encoding: chunked` body."""
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"



def upload_parts(filename: str, size: int) -> tuple[bytes, bytes]:
    """A one-file GraphQL multipart upload as (everything before the file's bytes, everything after them)."""
    operations = json.dumps({"query": UPLOAD, "variables": {"files": [None]}})
    before = (
        f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"operations\"\r\n\r\n{operations}\r\n"
        f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"map\"\r\n\r\n{{\"0\": [\"variables.files.0\"]}}\r\n"
        f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"0\"; filename=\"{filename}\"\r\n"
        "Content-Type: text/markdown\r\n\r\n"
    ).encode()
    after = f"\r\n--{BOUNDARY}--\r\n".encode()
    return before, after


def upload_headers(extra: Mapping[str, str] | None = None, length: int | None = None) -> dict[str, str]:
    headers = {"Content-Type": f"multipart/form-data; boundary={BOUNDARY}", "Apollo-Require-Preflight": "true"}
    headers["Content-Length" if length is not None else "Transfer-Encoding"] = \
        str(length) if length is not None else "chunked"
    return {**headers, **(extra or {})}
