"""Structured logging through structlog, rendered for people or as JSON lines."""

from __future__ import annotations

import logging
import sys

import structlog


def formatter(fmt: str, pre_chain: list[structlog.types.Processor] | None = None) -> logging.Formatter:
    """The one formatter of every record, structlog's and the stdlib's (uvicorn, the driver). JSON lines get the
    traceback as text in `exception` (JSONRenderer alone would write the exc_info tuple's repr, no traceback);
    the console renderer prints it itself."""
    # A plain traceback on the console: structlog's default there (rich's, when rich is installed, as it is for the
    # CLI's progress bars) prints every frame's local variables, which are API keys, request bodies and notes' text, and
    # reads them through their reprs (running properties) while logging.
    renderer: structlog.types.Processor = (
        structlog.processors.JSONRenderer() if fmt == "json"
        else structlog.dev.ConsoleRenderer(colors=False, exception_formatter=structlog.dev.plain_traceback)
    )
    tracebacks: list[structlog.types.Processor] = [structlog.processors.format_exc_info] if fmt == "json" else []
    return structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=pre_chain,
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, *tracebacks, renderer],
    )


def configure_logging(level: str = "INFO", fmt: str = "console") -> None:
    """Route stdlib and structlog records through one renderer on stderr."""
    shared: list[structlog.types.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    structlog.configure(
        processors=[*shared, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        # Not cached: a cached logger keeps the processors of the moment it was first used, so a configuration made
        # later (the CLI's, run in-process by the tests, or structlog.testing.capture_logs) would miss it.
        cache_logger_on_first_use=False,
    )
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter(fmt, shared))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    # The driver logs every routing and pool step at INFO; keep its warnings only.
    logging.getLogger("neo4j").setLevel(logging.WARNING)
