"""A real OpenAI-compatible HTTP server for tests: Starlette under uvicorn, in a thread, on 127.0.0.1.

It speaks the wire format the `openai` client parses (`/v1/chat/completions`, `/v1/embeddings`, `/v1/models`),
so the client's own timeouts, retries and parsing run for real, and the `/v1/rerank` of Cohere, Jina and vLLM
(`{model, query, documents, top_n}` → `{results: [{index, relevance_score}]}`, best first). Tests script it:

- chat answers come from a handler receiving the request JSON (`server.on_chat(lambda body: "...")`);
- embeddings are deterministic bag-of-words vectors (`hashed_embedding`): texts sharing words are similar;
- rerank scores are word overlap (`overlap_score`: the share of the query's words the document holds, as words,
  no stemming), or what a test's scorer says of the documents, as sent (`server.on_rerank(lambda query, documents:
  [...])`, one score each);
- faults are queued for the next N calls: `rate_limit`, `fail`, `delay`, `malformed`, or any `Fault`;
- every request is recorded (`server.requests("chat")`) with when it arrived and when it was answered, so a test
  can tell which calls were in flight at a moment (`server.in_flight_at(t)`);
- a fixed latency per route (`server.set_latency(0.5, route="chat")`), and a hold (`server.hold(match)`) that
  keeps every call arriving from then on (whose JSON body `match` accepts) waiting until `server.release()`: a
  crash test kills its client while calls are certainly in flight.

Embeddings honour `encoding_format`: the openai client asks for `base64` (little-endian float32) unless told
otherwise, and decodes it; `float` or no format gives JSON lists.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import itertools
import json
import re
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any, Literal

import numpy as np
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

RouteName = Literal["chat", "embeddings", "rerank"]
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class ChatReply:
    """A chat answer with control over `finish_reason` (e.g. "length" for a cut answer)."""

    content: str | None
    finish_reason: str = "stop"


ChatHandler = Callable[[dict[str, Any]], "str | ChatReply"]
RerankScorer = Callable[[str, list[str]], list[float]]


@dataclass(frozen=True)
class Fault:
    """What to do instead of (or before) answering one call.

    `status` None with no `body` answers normally after `delay` seconds; `body` is sent raw (status 200 unless
    given), for malformed responses; otherwise an OpenAI-shaped error with `status` and `retry_after`.
    """

    status: int | None = None
    delay: float = 0.0
    retry_after: str | None = None
    body: str | None = None


@dataclass(frozen=True)
class RecordedRequest:
    route: RouteName
    body: Any
    headers: dict[str, str]
    received_at: float  # time.time() of arrival
    answered_at: float | None = None  # when the answer was handed to the HTTP layer; None while in flight

    def in_flight_at(self, moment: float) -> bool:
        """Arrived before `moment` and not answered by then."""
        return self.received_at <= moment and (self.answered_at is None or self.answered_at > moment)


class _BadRequest(Exception):
    pass


def hashed_embedding(text: str, dimensions: int) -> list[float]:
    """Signed bag-of-words hashing into `dimensions`, L2-normalised; no words gives a unit vector."""
    vector = np.zeros(dimensions, dtype=np.float64)
    for word in _WORD.findall(text.lower()):
        digest = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "big")
        vector[digest % dimensions] += 1.0 if (digest >> 32) & 1 else -1.0
    norm = float(np.linalg.norm(vector))
    if norm == 0.0:
        vector[0], norm = 1.0, 1.0
    return [float(value) for value in (vector / norm).astype(np.float32)]


def overlap_score(query: str, document: str) -> float:
    """The share of the query's distinct words (lower-cased \\w+) that the document holds as words; 0 for none."""
    wanted = set(_WORD.findall(query.lower()))
    return len(wanted & set(_WORD.findall(document.lower()))) / len(wanted) if wanted else 0.0


def overlap_scores(query: str, documents: list[str]) -> list[float]:
    return [overlap_score(query, document) for document in documents]


def default_chat_handler(body: dict[str, Any]) -> str:
    return "ok"


class OpenAICompatibleServer:
    """Start with `with OpenAICompatibleServer() as server:`; point the client at `server.base_url`."""

    def __init__(self, *, embedding_dimensions: int = 384, api_key: str | None = None) -> None:
        self.embedding_dimensions = embedding_dimensions
        self.api_key = api_key
        self.shuffle_embeddings = False
        self.handler_errors: list[BaseException] = []
        self._lock = threading.Lock()
        self._faults: deque[tuple[RouteName | None, Fault]] = deque()
        self._requests: list[RecordedRequest] = []
        self._chat_handler: ChatHandler = default_chat_handler
        self._rerank_scorer: RerankScorer = overlap_scores
        self._ids = itertools.count(1)
        self._latency: dict[RouteName | None, float] = {}
        self._hold: Callable[[Any], bool] | None = None
        self._closing = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self.port = 0
        self.app = Starlette(
            routes=[
                Route("/v1/chat/completions", self._chat, methods=["POST"]),
                Route("/v1/embeddings", self._embeddings, methods=["POST"]),
                Route("/v1/models", self._models, methods=["GET"]),
                Route("/v1/rerank", self._rerank, methods=["POST"]),
            ]
        )

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def rerank_url(self) -> str:
        return f"{self.base_url}/rerank"

    def start(self, timeout: float = 10.0) -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(
            self.app,
            loop="asyncio",
            http="h11",
            ws="none",
            lifespan="off",
            log_config=None,
            log_level="warning",
            access_log=False,
            timeout_graceful_shutdown=2,
        )
        self._server = uvicorn.Server(config)
        self._closing = asyncio.Event()  # binds to the server thread's loop on first use
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [sock]}, name="openai-test-server", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                sock.close()
                raise RuntimeError("the OpenAI-compatible test server did not start")
            time.sleep(0.01)

    def stop(self) -> None:
        if self._loop is not None:  # ends injected delays at once
            with contextlib.suppress(RuntimeError):  # the loop is already closed if the server thread died
                self._loop.call_soon_threadsafe(self._closing.set)
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._server = self._thread = self._loop = None

    def __enter__(self) -> OpenAICompatibleServer:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def reset(self) -> None:
        """Forget requests, faults and the chat handler (between tests sharing one server)."""
        with self._lock:
            self._faults.clear()
            self._requests.clear()
            self._chat_handler = default_chat_handler
            self._rerank_scorer = overlap_scores
            self.shuffle_embeddings = False
            self.handler_errors.clear()
            self._latency.clear()
            self._hold = None

    def on_chat(self, handler: ChatHandler) -> None:
        self._chat_handler = handler

    def on_rerank(self, scorer: RerankScorer) -> None:
        """Score the documents of each call with `scorer` (the query, the documents in the order sent) instead of
        `overlap_scores`."""
        self._rerank_scorer = scorer

    def inject(self, fault: Fault, *, times: int = 1, route: RouteName | None = None) -> None:
        """Apply `fault` to the next `times` calls of `route` (any route when None)."""
        with self._lock:
            self._faults.extend((route, fault) for _ in range(times))

    def rate_limit(
        self, *, times: int = 1, retry_after: str = "0.05", route: RouteName | None = None
    ) -> None:
        self.inject(Fault(status=429, retry_after=retry_after), times=times, route=route)

    def fail(
        self,
        *,
        times: int = 1,
        status: int = 500,
        retry_after: str | None = None,
        route: RouteName | None = None,
    ) -> None:
        self.inject(Fault(status=status, retry_after=retry_after), times=times, route=route)

    def delay(self, seconds: float, *, times: int = 1, route: RouteName | None = None) -> None:
        self.inject(Fault(delay=seconds), times=times, route=route)

    def malformed(self, *, times: int = 1, route: RouteName | None = None) -> None:
        """Answer 200 with a body that is not JSON."""
        self.inject(Fault(body='{"id": "broken", "choices": [', status=200), times=times, route=route)

    def set_latency(self, seconds: float, *, route: RouteName | None = None) -> None:
        """Answer every call of `route` (every route when None) `seconds` late, until `reset()`."""
        with self._lock:
            self._latency[route] = seconds

    def hold(self, match: Callable[[Any], bool] | None = None) -> None:
        """Calls arriving from now on whose body `match` accepts (all when None) wait, recorded and unanswered,
        until `release()` or the server stops."""
        self._hold = match or (lambda body: True)

    def release(self) -> None:
        self._hold = None

    def _held(self, body: Any) -> bool:
        hold = self._hold
        if hold is None or self._closing.is_set() or not isinstance(body, dict):
            return False
        try:
            return hold(body)
        except Exception as exc:  # a matcher that cannot read this body does not hold it (nor answer it 500)
            self.handler_errors.append(exc)
            return False

    def in_flight_at(self, moment: float, route: RouteName | None = None) -> list[RecordedRequest]:
        """Calls that had arrived by `moment` (a `time.time()`) and were not answered by then."""
        return [r for r in self.requests(route) if r.in_flight_at(moment)]

    def requests(self, route: RouteName | None = None) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self._requests if route is None or r.route == route]

    def count(self, route: RouteName | None = None) -> int:
        return len(self.requests(route))

    async def _chat(self, request: Request) -> Response:
        return await self._handle(request, "chat", self._chat_payload)

    async def _embeddings(self, request: Request) -> Response:
        return await self._handle(request, "embeddings", self._embedding_payload)

    async def _rerank(self, request: Request) -> Response:
        return await self._handle(request, "rerank", self._rerank_payload)

    async def _models(self, request: Request) -> Response:
        models = [{"id": name, "object": "model", "created": 0, "owned_by": "tests"} for name in ("test",)]
        return JSONResponse({"object": "list", "data": models})

    async def _handle(
        self, request: Request, route: RouteName, build: Callable[[dict[str, Any]], dict[str, Any]]
    ) -> Response:
        self._loop = asyncio.get_running_loop()
        raw = await request.body()
        try:
            body: Any = json.loads(raw)
        except ValueError:
            body = None
        record = RecordedRequest(route, body, dict(request.headers), time.time())
        with self._lock:
            self._requests.append(record)
        try:
            return await self._answer(request, route, body, build)
        finally:
            self._answered(record)

    def _answered(self, record: RecordedRequest) -> None:
        with self._lock:
            for index in range(len(self._requests) - 1, -1, -1):  # the newest first: it is usually near the end
                if self._requests[index] is record:
                    self._requests[index] = replace(record, answered_at=time.time())
                    return

    async def _answer(
        self, request: Request, route: RouteName, body: Any, build: Callable[[dict[str, Any]], dict[str, Any]]
    ) -> Response:
        while self._held(body):
            await self._sleep(0.01)
        with self._lock:
            latency = self._latency.get(route, self._latency.get(None, 0.0))
        await self._sleep(latency)
        if self.api_key is not None and request.headers.get("authorization") != f"Bearer {self.api_key}":
            return _error(401, "Incorrect API key provided.", "invalid_request_error", "invalid_api_key")
        with self._lock:
            fault = self._take_fault(route)
        if fault is not None:
            await self._sleep(fault.delay)
            headers = {"retry-after": fault.retry_after} if fault.retry_after is not None else None
            if fault.body is not None:
                return Response(fault.body, fault.status or 200, headers, media_type="application/json")
            if fault.status is not None:
                kind = "rate_limit_error" if fault.status == 429 else "server_error"
                return _error(fault.status, f"Injected fault (HTTP {fault.status}).", kind, None, headers)
        if not isinstance(body, dict):
            return _error(400, "The body is not a JSON object.", "invalid_request_error", None)
        try:
            return JSONResponse(build(body))
        except _BadRequest as exc:
            return _error(400, str(exc), "invalid_request_error", None)

    def _take_fault(self, route: RouteName) -> Fault | None:
        for entry in self._faults:
            if entry[0] is None or entry[0] == route:
                self._faults.remove(entry)
                return entry[1]
        return None

    async def _sleep(self, seconds: float) -> None:
        if seconds > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._closing.wait(), seconds)

    def _chat_payload(self, body: dict[str, Any]) -> dict[str, Any]:
        model, messages = body.get("model"), body.get("messages")
        if not isinstance(model, str) or not isinstance(messages, list) or not messages:
            raise _BadRequest("'model' (a string) and 'messages' (a non-empty list) are required.")
        if body.get("stream"):
            raise _BadRequest("This test server does not stream.")
        try:
            reply = self._chat_handler(body)
        except Exception as exc:  # a test's handler failing is reported to the test, not lost in this thread
            self.handler_errors.append(exc)
            raise _BadRequest(f"The test's chat handler raised {exc.__class__.__name__}.") from exc
        answer = reply if isinstance(reply, ChatReply) else ChatReply(reply)
        prompt_tokens = sum(
            len(_WORD.findall(str(m.get("content", "")))) for m in messages if isinstance(m, dict)
        )
        completion_tokens = len(_WORD.findall(answer.content or ""))
        message = {"role": "assistant", "content": answer.content, "refusal": None}
        return {
            "id": f"chatcmpl-{next(self._ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [
                {"index": 0, "message": message, "finish_reason": answer.finish_reason, "logprobs": None}
            ],
            "usage": _usage(prompt_tokens, completion_tokens),
            "system_fingerprint": None,
        }

    def _embedding_payload(self, body: dict[str, Any]) -> dict[str, Any]:
        model, texts = body.get("model"), body.get("input")
        if isinstance(texts, str):
            texts = [texts]
        if not isinstance(model, str) or not isinstance(texts, list) or not texts:
            raise _BadRequest("'model' (a string) and 'input' (a string or a non-empty list) are required.")
        if not all(isinstance(text, str) and text for text in texts):
            raise _BadRequest("'input' must hold non-empty strings (token arrays are not supported here).")
        dimensions = body.get("dimensions", self.embedding_dimensions)
        encoding = body.get("encoding_format", "float")
        if not isinstance(dimensions, int) or dimensions < 1 or encoding not in ("float", "base64"):
            raise _BadRequest("'dimensions' must be a positive integer, 'encoding_format' float or base64.")
        data = [
            {
                "object": "embedding",
                "index": index,
                "embedding": _encode(hashed_embedding(text, dimensions), encoding),
            }
            for index, text in enumerate(texts)
        ]
        if self.shuffle_embeddings:
            data.reverse()
        tokens = sum(len(_WORD.findall(text)) for text in texts)
        usage = {"prompt_tokens": tokens, "total_tokens": tokens}
        return {"object": "list", "data": data, "model": model, "usage": usage}


    def _rerank_payload(self, body: dict[str, Any]) -> dict[str, Any]:
        model, query, documents = body.get("model"), body.get("query"), body.get("documents")
        if not isinstance(query, str) or not query or not isinstance(documents, list) or not documents:
            raise _BadRequest("'query' (a non-empty string) and 'documents' (a non-empty list) are required.")
        if not all(isinstance(document, str) for document in documents):
            raise _BadRequest("'documents' must hold strings.")
        top_n = body.get("top_n") or len(documents)  # vLLM: 0 or none means all
        if not isinstance(top_n, int) or top_n < 0:
            raise _BadRequest("'top_n' must be a non-negative integer.")
        try:
            scores = [float(score) for score in self._rerank_scorer(query, documents)]
            if len(scores) != len(documents):
                raise ValueError(f"{len(scores)} scores for {len(documents)} documents")
        except Exception as exc:  # a test's scorer failing is reported to the test, not lost in this thread
            self.handler_errors.append(exc)
            raise _BadRequest(f"The test's rerank scorer raised {exc.__class__.__name__}.") from exc
        order = sorted(range(len(documents)), key=lambda index: (-scores[index], index))[:top_n]
        tokens = sum(len(_WORD.findall(text)) for text in [query, *documents])
        return {
            "id": f"rerank-{next(self._ids)}",
            "model": model,
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            "results": [{"index": index, "relevance_score": scores[index]} for index in order],
        }


def _encode(vector: list[float], encoding: str) -> list[float] | str:
    if encoding == "base64":
        return base64.b64encode(np.asarray(vector, dtype="<f4").tobytes()).decode("ascii")
    return vector


def _usage(prompt_tokens: int, completion_tokens: int) -> dict[str, int]:
    total = prompt_tokens + completion_tokens
    return {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens, "total_tokens": total}


def _error(
    status: int, message: str, kind: str, code: str | None, headers: dict[str, str] | None = None
) -> Response:
    body = {"error": {"message": message, "type": kind, "param": None, "code": code}}
    return JSONResponse(body, status_code=status, headers=headers)


@contextmanager
def run_openai_server(**kwargs: Any) -> Iterator[OpenAICompatibleServer]:
    """A started server for the duration of the block."""
    with OpenAICompatibleServer(**kwargs) as server:
        yield server
