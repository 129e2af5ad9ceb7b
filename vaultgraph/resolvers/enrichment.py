"""Enrichment over GraphQL: the progress query, re-enrichment, and the two subscriptions."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Annotated

import strawberry

from vaultgraph.events.bus import DocumentStageChanged
from vaultgraph.schema.context import Info
from vaultgraph.schema.extensions.broadcast import express, shared
from vaultgraph.schema.types.enrichment import EnrichmentEvent, EnrichmentProgress
from vaultgraph.schema.types.items import Document


async def enrichment_progress(info: Info) -> EnrichmentProgress:
    """How many documents you can see are queued, running, done, failed and skipped."""
    ctx = info.context
    return EnrichmentProgress.from_domain(await ctx.services.enrichment.progress(ctx.principal))


async def reenrich(
    info: Info,
    ids: Annotated[list[strawberry.ID] | None, strawberry.argument(description=(
        "Documents to enrich again, at most 1,000 (LIMIT_EXCEEDED beyond; NOT_FOUND for one you cannot see); "
        "null: every FAILED one."))]
    = None,
) -> list[Document]:
    """Enrich these documents again (every FAILED one when no ids are given); returns them, QUEUED."""
    ctx = info.context
    documents = await ctx.services.enrichment.reenrich(ctx.principal, [str(i) for i in ids] if ids else None)
    return [Document.from_domain(document) for document in documents]


async def enrichment_events(
    info: Info,
    document_ids: Annotated[list[strawberry.ID] | None, strawberry.argument(description=(
        "Only these documents; null or empty: every document of the tenant you can see."))] = None,
) -> AsyncGenerator[EnrichmentEvent, None]:
    """Stage changes of these documents (all of the tenant's when empty): first the current stage of each
    (of every unfinished one when empty), then every change, with the error text on FAILED and SKIPPED."""
    ctx = info.context
    ids = [str(i) for i in document_ids] if document_ids else None
    straight = express(_event_payload)  # a live event written to the socket without waking this generator
    async for event in ctx.services.enrichment.stage_events(ctx.principal, ids, straight):
        yield _event_payload(event)


def _event_payload(event: DocumentStageChanged) -> EnrichmentEvent:
    return shared(EnrichmentEvent.from_domain(event), event)  # executed once per event and shape


async def enrichment_progress_stream(info: Info) -> AsyncGenerator[EnrichmentProgress, None]:
    """The counts now, then again whenever they change (at most four times a second)."""
    ctx = info.context
    async for progress in ctx.services.enrichment.progress_stream(ctx.principal):
        yield shared(EnrichmentProgress.from_domain(progress), progress)
