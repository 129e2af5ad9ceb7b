"""The fuzzy link pass (chat through the real openai client against the test server) and link suggestions."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from neo4j import AsyncManagedTransaction

from tests.support.openai_server import OpenAICompatibleServer, run_openai_server
from vaultgraph.config import Settings
from vaultgraph.domain import Link, LinkOrigin, Principal
from vaultgraph.errors import Conflict, NotFound
from vaultgraph.graph.session import Graph
from vaultgraph.models import LocalModelClient, ModelConfig, OpenAIModelClient
from vaultgraph.models.client import ModelClient
from vaultgraph.services.fuzzy_links import FuzzyResolver, save_hook
from vaultgraph.services.indexing import Indexer
from vaultgraph.services.links import LinkDraft, LinkService
from vaultgraph.services.notes import NoteDraft, NoteService
from vaultgraph.services.search import SearchService
from vaultgraph.services.suggestions import SuggestionService
from vaultgraph.workspace import Workspace

pytestmark = pytest.mark.graph


@pytest.fixture
def openai() -> Iterator[OpenAICompatibleServer]:
    with run_openai_server(embedding_dimensions=384) as server:
        yield server


@pytest.fixture
async def remote(openai: OpenAICompatibleServer) -> AsyncIterator[OpenAIModelClient]:
    client = OpenAIModelClient(ModelConfig(base_url=openai.base_url, api_key="sk-test", embedding_model="test-embed",
                                           chat_model="test-chat", max_retries=0, timeout_seconds=5))
    yield client
    await client.aclose()


@pytest.fixture(scope="module")
def local() -> LocalModelClient:
    return LocalModelClient()


def _services(graph: Graph, models: ModelClient) -> tuple[NoteService, FuzzyResolver]:
    search = SearchService(graph, models)
    resolver = FuzzyResolver(graph, search, models)
    return NoteService(graph, 100, indexer=save_hook(Indexer(graph, models), resolver)), resolver


async def _outgoing(graph: Graph, settings: Settings, principal: Principal, item_id: str) -> list[Link]:
    links = LinkService(graph, Workspace(settings.workspace_dir), 100)
    page = (await links.pages(principal, [item_id], True, None, 100, None))[item_id]
    return [link for _, link in page.items]


def _answer(match: int | None) -> Any:
    return lambda body: json.dumps({"match": match})


async def test_a_ghost_ref_binds_to_the_note_the_model_picks(
    graph: Graph, settings: Settings, remote: OpenAIModelClient, openai: OpenAICompatibleServer, principal: Principal
) -> None:
    notes, _ = _services(graph, remote)
    overview = (await notes.save(principal, NoteDraft(title="Octipus architecture overview",
                                                      body="How the octipus architecture fits together."))).note
    openai.on_chat(_answer(1))
    source = (await notes.save(principal, NoteDraft(title="Plan", body="Read [[Octipus Architecture]] first."))).note
    [link] = await _outgoing(graph, settings, principal, source.id)
    assert (link.target_id, link.ref, link.key) == (overview.id, "Octipus Architecture", "octipus-architecture")
    assert link.confidence is not None and 0.35 <= link.confidence <= 1.0
    [request] = openai.requests("chat")
    prompt = request.body["messages"][1]["content"]
    assert "[[Octipus Architecture]]" in prompt and "1. Octipus architecture overview" in prompt

    # An exact match appearing later reclaims the guess and clears its confidence.
    exact = (await notes.save(principal, NoteDraft(title="Octipus Architecture", body="The real one."))).note
    [link] = await _outgoing(graph, settings, principal, source.id)
    assert link.target_id == exact.id and link.confidence is None


async def test_no_match_leaves_the_ghost_and_is_asked_once(
    graph: Graph, settings: Settings, remote: OpenAIModelClient, openai: OpenAICompatibleServer, principal: Principal
) -> None:
    notes, _ = _services(graph, remote)
    await notes.save(principal, NoteDraft(title="Octipus deployment", body="Deploying the octipus cluster."))
    openai.on_chat(_answer(None))
    source = (await notes.save(principal, NoteDraft(title="Plan", body="See [[Octipus cluster]]."))).note
    [link] = await _outgoing(graph, settings, principal, source.id)
    assert link.target_id is None
    await notes.save(principal, NoteDraft(id=source.id, title="Plan", body="See [[Octipus cluster]]. Edited."))
    assert openai.count("chat") == 1


async def test_at_most_five_refs_per_save(
    graph: Graph, remote: OpenAIModelClient, openai: OpenAICompatibleServer, principal: Principal
) -> None:
    notes, _ = _services(graph, remote)
    await notes.save(principal, NoteDraft(title="Gardening topics", body="Gardening topics of all kinds."))
    openai.on_chat(_answer(None))
    body = " ".join(f"[[Gardening topic {i}]]" for i in range(7))
    await notes.save(principal, NoteDraft(title="Index", body=body))
    assert openai.count("chat") == 5


async def test_without_a_chat_model_the_pass_is_a_no_op(
    graph: Graph, settings: Settings, local: LocalModelClient, principal: Principal
) -> None:
    notes, resolver = _services(graph, local)
    await notes.save(principal, NoteDraft(title="Octipus architecture overview", body="Octipus architecture."))
    source = (await notes.save(principal, NoteDraft(title="Plan", body="Read [[Octipus Architecture]]."))).note
    [link] = await _outgoing(graph, settings, principal, source.id)
    assert link.target_id is None
    [ghost] = await resolver.ghosts(principal)  # still listed for review, with the note it probably means
    assert ghost.ref == "octipus-architecture" and ghost.text == "Octipus Architecture"
    assert [s.id for s in ghost.sources] == [source.id]
    assert ghost.candidates and ghost.candidates[0].item.title == "Octipus architecture overview"


async def test_a_ghost_lists_each_source_once_and_counts_every_link(
    graph: Graph, settings: Settings, local: LocalModelClient, principal: Principal
) -> None:
    notes, resolver = _services(graph, local)
    # Two links of one note to one missing name: a [[link]] in its body and a typed link by that name.
    first = (await notes.save(principal, NoteDraft(title="Plan", body="Then [[Nowhere]]."))).note
    links = LinkService(graph, Workspace(settings.workspace_dir), 100)
    await links.create(principal, LinkDraft(source_id=first.id, type="RELATED", ref="Nowhere"))
    second = (await notes.save(principal, NoteDraft(title="Later", body="Also [[nowhere]]."))).note
    [ghost] = await resolver.ghosts(principal)
    assert (ghost.ref, ghost.links) == ("nowhere", 3)
    assert [s.id for s in ghost.sources] == [first.id, second.id]  # each once, in the order they first linked


async def _relationships(tx: AsyncManagedTransaction, tenant: str) -> int:
    record = await (await tx.run("MATCH (:Item {tenantId: $t})-[r]->() RETURN count(r) AS n", t=tenant)).single()
    assert record is not None
    return int(record["n"])


async def test_suggestions_are_similar_unlinked_notes_and_never_stored(
    graph: Graph, local: LocalModelClient, principal: Principal
) -> None:
    notes, _ = _services(graph, local)
    linked = (await notes.save(principal, NoteDraft(title="Inverters", body="Solar inverters convert power."))).note
    note = (await notes.save(principal, NoteDraft(
        title="Solar panels on the roof", body="We mount solar panels on the south roof. See [[Inverters]]."))).note
    similar = (await notes.save(principal, NoteDraft(
        title="Photovoltaic installation", body="Installing photovoltaic modules on a rooftop, facing south."))).note
    unrelated = (await notes.save(principal, NoteDraft(title="Cat food", body="Our cat prefers tuna."))).note
    before = await graph.read(_relationships, principal.tenant_id)
    suggestions = SuggestionService(graph, SearchService(graph, local))
    found = await suggestions.suggest(principal, note.id)
    ids = [s.target.id for s in found]
    assert ids[0] == similar.id
    assert note.id not in ids and linked.id not in ids and unrelated.id not in ids
    assert 0.3 <= found[0].similarity <= 1.0 and "photovoltaic" in found[0].passage.lower()
    assert await graph.read(_relationships, principal.tenant_id) == before

    link = await suggestions.accept(principal, note.id, similar.id)
    assert (link.type, link.origin, link.target_id, link.confidence) == ("RELATED", LinkOrigin.USER, similar.id, None)
    assert similar.id not in [s.target.id for s in await suggestions.suggest(principal, note.id)]
    with pytest.raises(Conflict):
        await suggestions.accept(principal, note.id, similar.id)
    with pytest.raises(NotFound):
        await suggestions.suggest(Principal(tenant_id=principal.tenant_id + "x"), note.id)
