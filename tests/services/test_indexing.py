"""Indexing against the real Neo4j: chunks of long bodies, vectors reused by content hash, documents too.

Embeddings come from the test's OpenAI-compatible server, which records what it was asked to embed.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from datetime import UTC, datetime

import pytest
from neo4j import AsyncManagedTransaction

from tests.support.openai_server import OpenAICompatibleServer, run_openai_server
from vaultgraph.domain import Document, Enrichment, EnrichmentStage, Owner, Principal, Scope
from vaultgraph.graph.session import Graph
from vaultgraph.models import ModelConfig, OpenAIModelClient
from vaultgraph.services.indexing import Indexer, content_hash, note_text
from vaultgraph.services.notes import NoteDraft, NoteService
from vaultgraph.services.search import SearchService
from vaultgraph.services.search_request import SearchMode, SearchRequest
from vaultgraph.text.chunking import ChunkingPolicy

pytestmark = pytest.mark.graph

POLICY = ChunkingPolicy(max_chars=400, overlap_chars=50, min_chars=100)


def _section(name: str, words: str) -> str:
    return f"## {name}\n" + " ".join(f"{words} sentence {i}." for i in range(12)) + "\n\n"


LONG_BODY = _section("Alpha", "apples grow") + _section("Beta", "bees buzz") + _section("Gamma", "goats climb")


@pytest.fixture
def server() -> Iterator[OpenAICompatibleServer]:
    with run_openai_server(embedding_dimensions=384) as running:
        yield running


@pytest.fixture
async def models(server: OpenAICompatibleServer) -> AsyncIterator[OpenAIModelClient]:
    client = OpenAIModelClient(ModelConfig(base_url=server.base_url, api_key="sk-test", embedding_model="test-embed",
                                           max_retries=0, timeout_seconds=5))
    yield client
    await client.aclose()


def _embedded(server: OpenAICompatibleServer) -> list[str]:
    return [text for request in server.requests("embeddings") for text in request.body["input"]]


async def _chunks(tx: AsyncManagedTransaction, tenant: str, item_id: str) -> list[dict[str, object]]:
    result = await tx.run(
        "MATCH (c:Chunk {tenantId: $tenant, itemId: $id}) RETURN c.ordinal AS ordinal, c.heading AS heading, "
        "c.text AS text, c.scope AS scope, c.ownerKey AS ownerKey, labels(c) AS labels, size(c.embedding) AS dims "
        "ORDER BY ordinal", tenant=tenant, id=item_id)
    return [dict(record) async for record in result]


async def test_a_long_note_gets_chunks_and_its_own_vector(
    graph: Graph, models: OpenAIModelClient, server: OpenAICompatibleServer, principal: Principal
) -> None:
    notes = NoteService(graph, 100, indexer=Indexer(graph, models, POLICY).index_notes)
    note = (await notes.save(principal, NoteDraft(title="Farm", body=LONG_BODY))).note
    assert note.indexed
    chunks = await graph.read(_chunks, principal.tenant_id, note.id)
    assert len(chunks) >= 3
    assert {c["heading"] for c in chunks} == {"Alpha", "Beta", "Gamma"}
    assert all(c["dims"] == 384 and "Embedded384" in c["labels"] for c in chunks)  # type: ignore[operator]
    assert all(c["scope"] == "shared" and c["ownerKey"] == "shared" for c in chunks)
    assert len(_embedded(server)) == len(chunks) + 1  # the note's own vector, then one per chunk


async def test_unchanged_content_embeds_nothing_and_an_edit_re_embeds_only_its_chunk(
    graph: Graph, models: OpenAIModelClient, server: OpenAICompatibleServer, principal: Principal
) -> None:
    indexer = Indexer(graph, models, POLICY)
    notes = NoteService(graph, 100, indexer=indexer.index_notes)
    note = (await notes.save(principal, NoteDraft(title="Farm", body=LONG_BODY))).note
    before = await graph.read(_chunks, principal.tenant_id, note.id)
    server.reset()
    assert await indexer.index_note(principal, note)
    assert _embedded(server) == []  # same text, same model, same policy: nothing to do

    edited = LONG_BODY.replace("goats climb sentence 11.", "goats descend sentence 11.")
    note = (await notes.save(principal, NoteDraft(id=note.id, title="Farm", body=edited))).note
    after = await graph.read(_chunks, principal.tenant_id, note.id)
    embedded = _embedded(server)
    changed = [c for c in after if c not in before]
    assert len(embedded) == 1 + len(changed) and 1 <= len(changed) < len(after)
    assert all("descend" in str(c["text"]) for c in changed)


async def test_a_body_that_shrinks_loses_its_chunks(
    graph: Graph, models: OpenAIModelClient, principal: Principal
) -> None:
    notes = NoteService(graph, 100, indexer=Indexer(graph, models, POLICY).index_notes)
    note = (await notes.save(principal, NoteDraft(title="Farm", body=LONG_BODY))).note
    note = (await notes.save(principal, NoteDraft(id=note.id, title="Farm", body="Just a line now."))).note
    assert note.indexed and await graph.read(_chunks, principal.tenant_id, note.id) == []


async def test_vectors_of_a_text_replaced_meanwhile_are_not_written_over_the_newer_ones(
    graph: Graph, models: OpenAIModelClient, server: OpenAICompatibleServer, principal: Principal
) -> None:
    # A worker's lane read the note, then a save of a new body indexed it inline; the lane's write comes last.
    indexer = Indexer(graph, models, POLICY)
    notes = NoteService(graph, 100, indexer=indexer.index_notes)
    read_by_the_lane = (await notes.save(principal, NoteDraft(title="Farm", body=LONG_BODY))).note
    edited = LONG_BODY.replace("goats climb", "goats descend")
    saved = (await notes.save(principal, NoteDraft(id=read_by_the_lane.id, title="Farm", body=edited))).note
    newer = await graph.read(_chunks, principal.tenant_id, saved.id)
    server.reset()

    assert await indexer.index_note(principal, read_by_the_lane)
    assert _embedded(server)  # the older text was embedded again (its vectors had been replaced)...
    assert await graph.read(_chunks, principal.tenant_id, saved.id) == newer  # ...and not written
    assert any("descend" in str(c["text"]) for c in newer)
    server.reset()
    assert await indexer.index_note(principal, saved) and _embedded(server) == []  # the newer vectors are whole


async def test_a_title_only_save_meanwhile_does_not_stop_the_new_bodys_vectors(
    graph: Graph, models: OpenAIModelClient, server: OpenAICompatibleServer, principal: Principal
) -> None:
    # A save of a new body is embedding; a save of only a new title lands first (it indexes nothing itself).
    indexer = Indexer(graph, models, POLICY)
    plain = NoteService(graph, 100)  # saves without indexing
    first = (await plain.save(principal, NoteDraft(title="Farm", body=LONG_BODY))).note
    edited = LONG_BODY.replace("goats climb", "goats descend")
    embedding = (await plain.save(principal, NoteDraft(id=first.id, title="Farm", body=edited))).note
    await plain.save(principal, NoteDraft(id=first.id, title="The farm", body=edited))
    assert await indexer.index_note(principal, embedding)
    assert any("descend" in str(c["text"]) for c in await graph.read(_chunks, principal.tenant_id, first.id))


async def test_a_batch_indexes_the_version_a_rename_left_of_a_note_it_also_saved(
    graph: Graph, models: OpenAIModelClient, principal: Principal
) -> None:
    # [rename Alpha, edit a note linking to it]: the rename rewrites the edited note after its save, in the batch.
    notes = NoteService(graph, 100, indexer=Indexer(graph, models, POLICY).index_notes)
    alpha = (await notes.save(principal, NoteDraft(title="Alpha", body="The first letter."))).note
    linker = (await notes.save(principal, NoteDraft(title="Index", body="See [[Alpha]]."))).note
    await notes.save_many(principal, [NoteDraft(id=alpha.id, title="Beta", body=alpha.body),
                                      NoteDraft(id=linker.id, title="Index", body="See [[Alpha]] first.")])
    stored = await graph.read(_vector_state, principal.tenant_id, linker.id)
    assert stored["body"] == "See [[Beta]] first." and stored["indexed"]
    assert stored["embeddingHash"] == content_hash(models.embedding_model_name, POLICY,
                                                   note_text("Index", "See [[Beta]] first."))


async def _vector_state(tx: AsyncManagedTransaction, tenant: str, id: str) -> dict[str, object]:
    result = await tx.run("MATCH (n:Note {tenantId: $tenant, id: $id}) RETURN n.body AS body, n.indexed AS indexed, "
                          "n.embeddingHash AS embeddingHash", tenant=tenant, id=id)
    record = await result.single()
    assert record is not None
    return dict(record)


async def test_a_note_still_saves_when_embedding_fails(
    graph: Graph, models: OpenAIModelClient, server: OpenAICompatibleServer, principal: Principal
) -> None:
    server.fail(times=1, status=503, route="embeddings")  # one call, no retries: this save's embedding fails
    notes = NoteService(graph, 100, indexer=Indexer(graph, models, POLICY).index_notes)
    result = await notes.save(principal, NoteDraft(title="Offline", body="Written while the model was down."))
    assert result.note.indexed is False
    again = await notes.save(principal, NoteDraft(id=result.note.id, title="Offline", body=result.note.body))
    assert again.note.indexed is True  # an unchanged save retries what the failed one could not do


async def _create_document(tx: AsyncManagedTransaction, tenant: str, doc_id: str, path: str) -> None:
    await tx.run(
        "CREATE (:Item:Document {id: $id, tenantId: $tenant, scope: 'team', teamId: 'ops', ownerKey: 'team:ops', "
        "path: $path, title: 'Runbook', docType: 'markdown', createdAt: datetime(), updatedAt: datetime()})",
        id=doc_id, tenant=tenant, path=path)


async def test_documents_are_indexed_with_their_text_as_chunks(
    graph: Graph, models: OpenAIModelClient, principal: Principal
) -> None:
    await graph.write(_create_document, principal.tenant_id, "doc_runbook", "ops/runbook.md")
    now = datetime.now(UTC)
    document = Document(
        id="doc_runbook", tenant_id=principal.tenant_id, owner=Owner(Scope.TEAM, team_id="ops"),
        path="ops/runbook.md", title="Runbook", doc_type="markdown", content_hash=None, size_bytes=0, summary=None,
        category=None, metadata={}, enrichment=Enrichment(EnrichmentStage.EMBED), created_at=now, updated_at=now,
    )
    report = await Indexer(graph, models, POLICY).index_document(document, "Restart the frobnicator with care.")
    assert report.indexed and report.chunks == 1 and report.embedded == 1  # its text lives only in its chunks
    [chunk] = await graph.read(_chunks, principal.tenant_id, "doc_runbook")
    assert chunk["scope"] == "team" and chunk["ownerKey"] == "team:ops"
    search = SearchService(graph, models)
    result = await search.search(principal, SearchRequest("frobnicator", mode=SearchMode.KEYWORD))
    assert [h.item.id for h in result.hits] == ["doc_runbook"]
    assert result.hits[0].snippet().text == "Restart the **frobnicator** with care."


async def test_a_run_that_read_an_older_file_writes_no_chunks_over_the_newer_files(
    graph: Graph, models: OpenAIModelClient, principal: Principal
) -> None:
    # The file changed while an enrichment run embedded its older text: the node names the newer file's SHA.
    await graph.write(_create_document, principal.tenant_id, "doc_runbook", "ops/runbook.md")
    await graph.write(lambda tx: tx.run("MATCH (d:Document {tenantId: $tenant, id: 'doc_runbook'}) "
                                        "SET d.contentHash = 'sha-of-the-new-file'", tenant=principal.tenant_id))
    now = datetime.now(UTC)
    document = Document(
        id="doc_runbook", tenant_id=principal.tenant_id, owner=Owner(Scope.TEAM, team_id="ops"),
        path="ops/runbook.md", title="Runbook", doc_type="markdown", content_hash="sha-of-the-old-file",
        size_bytes=0, summary=None, category=None, metadata={}, enrichment=Enrichment(EnrichmentStage.EMBED),
        created_at=now, updated_at=now,
    )
    indexer = Indexer(graph, models, POLICY)
    assert (await indexer.index_document(document, "Restart the frobnicator.")).embedded == 1
    assert await graph.read(_chunks, principal.tenant_id, "doc_runbook") == []
    await indexer.index_document(replace(document, content_hash="sha-of-the-new-file"), "Restart the frobnicator.")
    assert len(await graph.read(_chunks, principal.tenant_id, "doc_runbook")) == 1
