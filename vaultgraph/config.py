"""Settings: one typed object read from the environment once, in `create_app` or the CLI, then passed down."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

MAX_RERANK_CANDIDATES = 200  # each channel then digs 200 deep: the reranker's cost, not the index's, is the limit


class Settings(BaseSettings):
    """Every knob vaultgraph has. The README's configuration table lists each one (a test keeps it so)."""

    model_config = SettingsConfigDict(env_prefix="VAULTGRAPH_", extra="ignore", populate_by_name=True)

    host: str = Field("127.0.0.1", description="Address the HTTP server binds to.")
    port: int = Field(8000, ge=0, le=65535, description="HTTP port of the GraphQL API and the explorer.")
    data_dir: Path = Field(Path(".vaultgraph"), description="Where the local Neo4j, logs and workspace live.")
    log_level: str = Field("INFO", description="Python log level name.")
    log_format: Literal["console", "json"] = Field("console", description="console for people, json for machines.")
    dev_tenant: str = Field("local", description="Tenant of the development mode (no API keys, loopback only).")

    # Security and API limits (README, "Security"): every refusal answers a code and changes nothing.
    dev_mode: bool = Field(
        True, description="Allow requests without an API key (X-Vaultgraph-* headers); refused off loopback."
    )
    allowed_hosts: list[str] | None = Field(
        None, description="Host names (name or name:port) the server answers besides loopback in development mode; "
        "with keys required, set: only these, unset: any host.",
    )
    cors_origins: list[str] | None = Field(
        None, description="Origins (scheme://host[:port]) whose pages may call the API from a browser (CORS), "
        "besides localhost/127.0.0.1 on any port in development mode; unset with keys required: none.",
    )
    api_key_cache_seconds: float = Field(
        10.0, ge=0, description="How long a checked API key is trusted without asking Neo4j again (revocation lag)."
    )
    graphiql: bool = Field(True, description="Serve the GraphiQL IDE at GET /graphql.")
    introspection: bool = Field(True, description="Answer introspection queries (__schema, __type).")
    graphql_suggestions: bool = Field(False, description="Add 'Did you mean …?' to errors (not without introspection).")
    max_query_depth: int = Field(10, ge=1, description="Deepest selection nesting an operation may have.")
    max_aliases: int = Field(15, ge=0, description="Most aliases one document may use.")
    max_tokens: int = Field(2000, ge=100, description="Most lexical tokens one document may have.")
    max_query_cost: int = Field(10_000, ge=1, description="Most nodes an operation may fetch, estimated from sizes.")
    max_batch_operations: int = Field(10, ge=1, description="Most operations one batched HTTP request may carry.")
    max_body_bytes: int = Field(1024 * 1024, ge=1024, description="Largest request body; larger answers 413.")
    upload_max_files: int = Field(50, ge=1, le=1000, description="Most files one uploadDocuments request carries.")
    upload_max_file_bytes: int = Field(
        50 * 1024 * 1024, ge=1, le=50 * 1024 * 1024, description="Largest file an upload may carry (50 MiB at most)."
    )
    upload_max_body_bytes: int = Field(
        200 * 1024 * 1024, ge=1024,
        description="Largest multipart upload request (every file and the operation); larger answers 413.",
    )
    upload_max_concurrent: int = Field(
        4, ge=0, description="Upload requests one tenant may have in flight at once (0: no limit); more answer 429."
    )
    rate_limit_per_second: float = Field(50.0, ge=0, description="Requests a second per API key (0: unlimited).")
    rate_limit_burst: int = Field(100, ge=1, description="Requests a key may make at once before the rate applies.")
    persisted_query_cache: int = Field(
        1000, ge=0, description="Automatic persisted queries (Apollo APQ) this process remembers by hash (0: none)."
    )
    ws_connection_init_timeout: float = Field(
        10.0, gt=0, description="Seconds a WebSocket has to send connection_init before it is closed (4408)."
    )
    metrics: bool = Field(True, description="Serve /metrics (Prometheus text format) and record what it shows.")
    otel_tracing: bool = Field(
        False, description="Trace each GraphQL operation and resolver with OpenTelemetry (the `otel` extra)."
    )
    metrics_token: str | None = Field(
        None, description="Bearer token /metrics asks for; unset: open in development mode only, else 403."
    )

    neo4j_uri: str | None = Field(
        None,
        validation_alias=AliasChoices("NEO4J_URI"),
        description="An external Neo4j (bolt://, neo4j://, neo4j+s://). Unset: vaultgraph starts its own.",
    )
    neo4j_user: str = Field("neo4j", validation_alias=AliasChoices("NEO4J_USER"), description="Neo4j user.")
    neo4j_password: str | None = Field(
        None, validation_alias=AliasChoices("NEO4J_PASSWORD"), description="Neo4j password (external server)."
    )
    neo4j_database: str | None = Field(
        None, validation_alias=AliasChoices("NEO4J_DATABASE"), description="Database name; server default if unset."
    )
    neo4j_bolt_port: int = Field(7687, ge=1, le=65535, description="Bolt port of the local Neo4j.")
    neo4j_heap_mb: int = Field(1024, ge=256, description="JVM heap of the local Neo4j, in MiB.")
    neo4j_pagecache_mb: int = Field(1024, ge=64, description="Page cache of the local Neo4j, in MiB.")
    neo4j_start_timeout: float = Field(180.0, gt=0, description="Seconds to wait for the local Neo4j's Bolt.")
    java_home: Path | None = Field(
        None, description="JDK (21 or newer) for the local Neo4j; found under /usr/lib/jvm when unset."
    )

    openai_base_url: str | None = Field(
        None, validation_alias=AliasChoices("OPENAI_BASE_URL"), description="OpenAI-compatible endpoint."
    )
    openai_api_key: str | None = Field(
        None, validation_alias=AliasChoices("OPENAI_API_KEY"), description="Key for that endpoint."
    )
    chat_model: str = Field("gpt-4o-mini", description="Chat model for summaries and link classification.")
    embedding_model: str | None = Field(
        None, description="Embedding model at the endpoint; unset uses the offline model (local_embedding_model)."
    )
    local_embedding_model: Literal["bge-small-en-v1.5", "all-MiniLM-L6-v2"] = Field(
        "bge-small-en-v1.5", description="The offline embedding model, when no endpoint model is set (README: why "
        "bge-small). Vectors another model stored are made again by the workers or `vaultgraph reembed`.",
    )
    embedding_dimensions: int = Field(384, ge=8, le=4096, description="Dimensions of the embedding model.")
    model_timeout: float = Field(60.0, gt=0, description="Seconds before one model call times out.")
    model_max_retries: int = Field(3, ge=0, description="Retries of a model call on 429 and 5xx.")

    enrichment_workers: bool = Field(True, description="Run the enrichment workers in this process.")
    enrichment_concurrency: int = Field(3, ge=1, le=64, description="Enrichment batches that run at once.")
    enrichment_batch_size: int = Field(5, ge=1, le=50, description="Documents per batch (and per summary call).")
    enrichment_attempt_timeouts: list[float] = Field(
        [300.0, 420.0, 600.0], min_length=1, description="Timeout of each attempt of a batch, in seconds."
    )
    enrichment_retry_backoff: list[float] = Field(
        [0.0, 2.0, 4.0], min_length=1, description="Pause before each attempt, in seconds (one per timeout)."
    )
    enrichment_lease_seconds: float = Field(
        60.0, gt=0, description="How long a worker's claim on a document lasts without a heartbeat."
    )
    enrichment_sweep_seconds: float = Field(
        30.0, gt=0, description="How often workers look in Neo4j for unfinished, unclaimed documents."
    )
    enrichment_give_way_seconds: float = Field(
        1.0, ge=0, le=60, description="Longest a background step (a claim, an embedding batch) waits for this "
        "process's requests in flight to be answered; 0: it never waits."
    )
    enrichment_max_bytes: int = Field(
        4 * 1024 * 1024, ge=1024, description="Largest file enrichment reads; larger ones are SKIPPED."
    )
    enrichment_tenants: list[str] | None = Field(
        None, description="Enrich only these tenants' documents (sharding worker processes); unset: every tenant."
    )
    event_queue_size: int = Field(1000, ge=10, description="Events buffered per subscriber before it is dropped.")
    workspace_watch: bool = Field(True, description="Watch the workspace for changes while the server runs.")
    workspace_watch_debounce_ms: int = Field(
        500, ge=10, le=60_000, description="Quiet time after a change before the watcher syncs the changed files (ms)."
    )
    redis_url: str | None = Field(
        None, validation_alias=AliasChoices("REDIS_URL"),
        description="Redis for events across processes (redis://, rediss://); unset: events stay in-process.",
    )

    vault_dirs: list[Path] | None = Field(
        None, description="Server folders importVault/exportVault may use (with subfolders); unset: the data "
        "directory in development mode, none otherwise.",
    )

    page_size_max: int = Field(100, ge=1, le=1000, description="Largest page a list query returns.")

    search_fusion: Literal["weighted", "rrf"] = Field(
        "weighted", description="Default fusion of hybrid search: weighted sum or reciprocal rank fusion."
    )
    search_normalisation: Literal["floor", "max-cosine", "min-max", "z-score"] = Field(
        "floor", description="How weighted fusion scales each channel to [0, 1] (bench/README.md measures them)."
    )
    search_similarity_floor: bool = Field(
        True, description="Drop vector hits below the query's similarity floor (services/similarity_floor.py); off "
                          "only where stored vectors are not the configured model's (the bench's synthetic ones)."
    )
    search_vector_completion: bool = Field(
        True, description="Give the keyword candidates the vector channel did not return their cosine before fusion "
                          "(one read of their stored vectors; bench/README.md, round three); off: they score 0 there."
    )
    search_keyword_weight: float = Field(0.4, ge=0, le=1, description="Weight of the keyword channel (weighted).")
    search_vector_weight: float = Field(0.6, ge=0, le=1, description="Weight of the vector channel (weighted).")
    search_query_cache: int = Field(256, ge=0, description="Query embeddings kept in the LRU cache (0: none).")
    rerank_url: str | None = Field(
        None, description="A /rerank endpoint (Cohere, Jina, vLLM shape), the full URL, e.g. "
                          "http://127.0.0.1:8001/v1/rerank; unset: no reranking."
    )
    rerank_model: str | None = Field(None, description="The reranking model at that endpoint (required with the URL).")
    rerank_api_key: str | None = Field(None, description="Bearer key for the rerank endpoint; unset: none sent.")
    rerank_candidates: int = Field(
        50, ge=1, le=MAX_RERANK_CANDIDATES, description="Top fused candidates the reranker reorders (the rest follow "
                                                         "in fused order)."
    )
    rerank_timeout: float = Field(
        5.0, gt=0, description="Seconds one rerank call may take; past it the search answers in fused order."
    )
    rerank_max_retries: int = Field(
        1, ge=0, le=5, description="Retries of a rerank call on connection errors, 429 and 5xx (not on a timeout)."
    )
    chunk_max_chars: int = Field(1200, ge=100, description="Longest chunk a long body is split into, in characters.")
    chunk_overlap_chars: int = Field(150, ge=0, description="Characters shared by neighbouring chunks of a section.")

    @model_validator(mode="after")
    def _rerank_needs_a_model(self) -> Settings:
        if self.rerank_url and not self.rerank_url.startswith(("http://", "https://")):
            raise ValueError("VAULTGRAPH_RERANK_URL must be an http:// or https:// URL (the full /rerank endpoint)")
        if self.rerank_url and not (self.rerank_model or "").strip():
            raise ValueError("VAULTGRAPH_RERANK_MODEL is required with VAULTGRAPH_RERANK_URL (the endpoint's model)")
        return self

    @property
    def neo4j_home(self) -> Path:
        return self.data_dir / "neo4j"

    @property
    def workspace_dir(self) -> Path:
        return self.data_dir / "workspace"

    @property
    def local_bolt_uri(self) -> str:
        return f"bolt://127.0.0.1:{self.neo4j_bolt_port}"
