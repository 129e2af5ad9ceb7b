"""contextPack as a property over random graphs stored in the real Neo4j: each example writes a few notes with random
sentences and random [[wikilinks]] through the save pipeline (a fresh tenant each, so examples never see each
other), then packs a random query drawn from the notes' own words within a random budget. Always: the pack's text
never exceeds the budget (counted with the service's own tokenizer), the top search hit comes first whenever its
smallest form (its header and first sentence) fits, every item is whole leading sentences of its text, and every
search hit that is not in the pack is reported as omitted."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.tiers import sized
from vaultgraph.domain import Principal
from vaultgraph.graph.session import Graph
from vaultgraph.models import LocalModelClient
from vaultgraph.models.local_embedding import default_tokenizer_path
from vaultgraph.services.context_pack import (
    DEFAULT_MAX_ITEMS,
    DEFAULT_THRESHOLD,
    ContextPackService,
    PackRole,
    pack_text,
    render,
)
from vaultgraph.services.indexing import Indexer
from vaultgraph.services.links import LinkService
from vaultgraph.services.notes import NoteDraft, NoteService, SaveResult
from vaultgraph.services.search import SearchService
from vaultgraph.services.search_request import SearchMode, SearchRequest
from vaultgraph.text.tokens import TokenCounter, sentences
from vaultgraph.workspace import Workspace

pytestmark = pytest.mark.graph

COUNTER = TokenCounter(default_tokenizer_path())
MODELS = LocalModelClient()
WORDS = ["vault", "graph", "token", "budget", "agent", "search", "sentence", "link", "index", "query", "model",
         "backlink", "review", "summary", "neighbour", "tenant", "cypher", "chunk", "relevance", "editor"]
SENTENCE = st.builds(lambda words, end: " ".join(words).capitalize() + end,
                     st.lists(st.sampled_from(WORDS), min_size=1, max_size=14), st.sampled_from([".", "!", "?"]))
BODY = st.lists(SENTENCE, min_size=1, max_size=10)
# A budget below 40 tokens rarely fits even one item's header; the mix covers both sides of every item's cost.
BUDGET = st.one_of(st.integers(min_value=16, max_value=48), st.integers(min_value=16, max_value=700))


@st.composite
def random_graph(draw: st.DrawFn) -> list[tuple[str, str]]:
    """2-7 notes (title, body); each body has random sentences and, between them, links to random other notes."""
    count = draw(st.integers(min_value=2, max_value=7))
    titles = [f"Note {n} {draw(st.sampled_from(WORDS))}" for n in range(count)]
    notes = []
    for n, title in enumerate(titles):
        body = draw(BODY)
        targets = draw(st.lists(st.sampled_from([t for t in titles if t != title]), max_size=3, unique=True))
        for target in targets:
            body.insert(draw(st.integers(min_value=0, max_value=len(body))), f"See [[{target}]].")
        notes.append((title, " ".join(body) if n % 2 else "\n".join(body)))
    return notes


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pack-workspace")


@settings(max_examples=sized(8, 20), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(notes=random_graph(), budget=BUDGET, data=st.data())
async def test_a_pack_over_a_random_graph_keeps_its_budget_its_top_hit_and_its_accounts(
    graph: Graph, workspace: Path, notes: list[tuple[str, str]], budget: int, data: st.DataObject
) -> None:
    principal = Principal(tenant_id=f"t{uuid.uuid4().hex[:16]}", sees_all_scopes=True)
    saver = NoteService(graph, 100, indexer=Indexer(graph, MODELS).index_notes)
    # One batch (the end state of saving them one by one, as saveNotes gives): the property is the pack's.
    saved = await saver.save_many(principal, [NoteDraft(title=title, body=body) for title, body in notes])
    assert all(isinstance(outcome, SaveResult) and outcome.note.indexed for outcome in saved), saved
    used_words = sorted({w.strip(".!?").lower() for _, body in notes for w in body.split() if "[[" not in w})
    query = " ".join(data.draw(st.lists(st.sampled_from([w for w in used_words if w in WORDS]), min_size=1,
                                        max_size=3), label="query"))
    search = SearchService(graph, MODELS)
    service = ContextPackService(search, LinkService(graph, Workspace(workspace), 100), COUNTER)

    hits = (await search.search(principal, SearchRequest(query=query, mode=SearchMode.HYBRID,
                                                         limit=DEFAULT_MAX_ITEMS, min_score=DEFAULT_THRESHOLD))).hits
    pack = await service.pack(principal, query, budget)

    # Never over budget, counted the way the service counts.
    assert COUNTER.count(pack.text) <= budget
    # Every item is whole leading sentences of its own text (nothing cut mid-sentence).
    passages = {hit.item.id: hit for hit in hits}
    for item in pack.items:
        source = pack_text(item.item, passages.get(item.item.id) if item.role is PackRole.HIT else None)
        whole, kept = sentences(source), sentences(item.content)
        assert kept and kept == whole[: len(kept)], (item.content, source)
        assert item.truncated == (len(kept) < len(whole))
    # The top hit comes first whenever its smallest form fits.
    if hits:
        top = hits[0]
        first_sentence = sentences(pack_text(top.item, top))[0]
        smallest = render(top.item.title, f"search hit, relevance {top.score:.2f}", first_sentence)
        if COUNTER.count(smallest) <= budget:
            assert pack.items and pack.items[0].item.id == top.item.id and pack.items[0].role is PackRole.HIT
        else:
            assert top.item.id in {o.item.id for o in pack.omitted}
    # What was left out accounts for every hit not in the pack; nothing is both in and out, or in twice.
    packed = [item.item.id for item in pack.items]
    omitted = [o.item.id for o in pack.omitted]
    assert len(set(packed)) == len(packed) and set(packed).isdisjoint(omitted)
    hit_ids = [hit.item.id for hit in hits]
    packed_hits = [i.item.id for i in pack.items if i.role is PackRole.HIT]
    assert set(hit_ids) == set(packed_hits) | {o.item.id for o in pack.omitted if o.role is PackRole.HIT}
    assert packed_hits == [h for h in hit_ids if h in packed_hits]  # in relevance order
    assert all(o.reason for o in pack.omitted)
    if not hits:
        assert pack.items == [] and pack.omitted == []
