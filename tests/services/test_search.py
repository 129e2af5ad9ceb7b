"""Search against the real Neo4j and the offline model, on a small corpus written for these tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.openai_server import OpenAICompatibleServer, run_openai_server
from vaultgraph.domain import Note, Principal, Scope
from vaultgraph.errors import InvalidInput, Unavailable
from vaultgraph.graph import search as cypher
from vaultgraph.graph.search import FULLTEXT_FIELDS, HitFilter
from vaultgraph.graph.session import Graph
from vaultgraph.models import LocalModelClient, ModelConfig, OpenAIModelClient
from vaultgraph.models.client import ModelClient
from vaultgraph.services.fusion import FusionMethod, fuse
from vaultgraph.services.indexing import Indexer
from vaultgraph.services.notes import NoteDraft, NoteService
from vaultgraph.services.search import SearchConfig, SearchResult, SearchService
from vaultgraph.services.search_request import SearchMode, SearchRequest
from vaultgraph.text.lucene import fallback_query

pytestmark = pytest.mark.graph

CORPUS = {
    "password": ("Resetting a forgotten password", "Request a reset email, then choose a new passphrase."),
    "incident": ("Billing incident", "The nightly billing job failed with error XQ7731 after the deploy."),
    "cats": ("Cat care", "Feed the cat twice a day and keep fresh water in the bowl."),
    "both": ("Tuning the vector index", "How to tune the vector index parameters for better recall."),
    "keyword_only": ("Piano tuning index", "An index of tuning forks and vector art of pianos, sorted by pitch."),
    "vector_only": ("Approximate nearest neighbour settings", "Adjust ef and M so HNSW lookups recall more."),
}


@pytest.fixture(scope="module")
def models() -> LocalModelClient:
    return LocalModelClient()


@pytest.fixture
def service(graph: Graph, models: LocalModelClient) -> SearchService:
    return SearchService(graph, models)


def _notes(graph: Graph, models: ModelClient) -> NoteService:
    return NoteService(graph, max_page_size=100, indexer=Indexer(graph, models).index_notes)


async def _corpus(graph: Graph, models: ModelClient, principal: Principal) -> dict[str, Note]:
    notes = _notes(graph, models)
    saved = {}
    for key, (title, body) in CORPUS.items():
        result = await notes.save(principal, NoteDraft(title=title, body=body))
        assert result.note.indexed
        saved[key] = result.note
    return saved


def _ids(result: SearchResult) -> list[str]:
    return [hit.item.id for hit in result.hits]


async def _search(service: SearchService, principal: Principal, query: str, **kwargs: object) -> SearchResult:
    return await service.search(principal, SearchRequest(query=query, **kwargs))  # type: ignore[arg-type]


async def test_a_paraphrase_without_shared_words_is_found_by_vector_and_hybrid(
    graph: Graph, models: LocalModelClient, service: SearchService, principal: Principal
) -> None:
    corpus = await _corpus(graph, models, principal)
    query = "I can't log into my account anymore"
    target = corpus["password"].id
    assert target not in _ids(await _search(service, principal, query, mode=SearchMode.KEYWORD))
    assert _ids(await _search(service, principal, query, mode=SearchMode.VECTOR))[0] == target
    hybrid = await _search(service, principal, query)
    assert _ids(hybrid)[0] == target
    top = hybrid.hits[0]
    assert top.keyword is None and top.vector is not None and top.score == pytest.approx(top.vector.score)


async def test_an_exact_rare_token_is_found_by_keyword_and_hybrid(
    graph: Graph, models: LocalModelClient, service: SearchService, principal: Principal
) -> None:
    corpus = await _corpus(graph, models, principal)
    for mode in (SearchMode.KEYWORD, SearchMode.HYBRID):
        result = await _search(service, principal, "XQ7731", mode=mode)
        assert _ids(result)[0] == corpus["incident"].id, mode
        assert "**XQ7731**" in result.hits[0].snippet().text
        assert result.hits[0].snippet().matched == ("xq7731",)


async def test_hybrid_ranks_a_match_of_both_channels_above_either_alone(
    graph: Graph, models: LocalModelClient, service: SearchService, principal: Principal
) -> None:
    corpus = await _corpus(graph, models, principal)
    for fusion in FusionMethod:
        result = await _search(service, principal, "vector index tuning", fusion=fusion)
        ids = _ids(result)
        assert ids[0] == corpus["both"].id, fusion
        both = result.hits[0]
        assert both.keyword is not None and both.vector is not None and both.fusion is fusion
        assert ids.index(corpus["keyword_only"].id) > 0
        assert corpus["vector_only"].id in ids


async def test_service_scores_are_the_fusion_of_its_channels(
    graph: Graph, models: LocalModelClient, service: SearchService, principal: Principal
) -> None:
    await _corpus(graph, models, principal)
    from vaultgraph.services.fusion import ChannelHit

    keyword = await _search(service, principal, "index tuning recall", mode=SearchMode.KEYWORD, limit=20)
    vector = await _search(service, principal, "index tuning recall", mode=SearchMode.VECTOR, limit=20)
    for method in FusionMethod:
        hybrid = await _search(service, principal, "index tuning recall", fusion=method, limit=20)
        # Fused from the channel scores of the same call: the full-text index is shared by every tenant, so its raw
        # BM25 scores move between two calls while other tests write (the suite runs in parallel).
        kw = [ChannelHit(h.item.id, h.keyword.raw) for h in hybrid.hits if h.keyword]
        vec = [ChannelHit(h.item.id, h.vector.raw) for h in hybrid.hits if h.vector]
        floor = hybrid.vector.floor
        expected = [(f.item_id, round(f.score, 9)) for f in fuse(
            kw, vec, method, normalisation=service.config.normalisation, vector_floor=floor)][:20]
        assert [(h.item.id, round(h.score, 9)) for h in hybrid.hits] == expected
        # Every item either channel found alone is a hit of the fused ranking, and no other.
        assert {h.item.id for h in hybrid.hits} == {h.item.id for h in keyword.hits} | {h.item.id for h in vector.hits}


async def test_graph_mode_brings_a_linked_item_with_its_path(
    graph: Graph, models: LocalModelClient, service: SearchService, principal: Principal
) -> None:
    notes = _notes(graph, models)
    battery = (await notes.save(principal, NoteDraft(title="Battery storage", body="Lithium cell chemistry."))).note
    inverter = (await notes.save(principal, NoteDraft(
        title="Solar inverter sizing", body="Size the inverter to the array; see [[Battery storage]]."))).note
    source = (await notes.save(principal, NoteDraft(
        title="Roof survey", body="Tiles, slope and shade measured on site. Next: [[Solar inverter sizing]]"))).note
    result = await _search(service, principal, "inverter sizing", mode=SearchMode.GRAPH, limit=1)
    assert _ids(result)[0] == inverter.id
    extras = {hit.item.id: hit for hit in result.hits[1:]}
    assert set(extras) == {battery.id, source.id}
    [out] = extras[battery.id].via
    assert (out.source.id, out.type, out.target.id) == (inverter.id, "WIKILINK", battery.id)
    [back] = extras[source.id].via
    assert (back.source.id, back.target.id) == (source.id, inverter.id)  # the link points at the hit
    assert extras[battery.id].score == pytest.approx(result.hits[0].score / 2)


async def test_no_mode_returns_another_tenants_item_and_k_still_come_back(
    graph: Graph, models: LocalModelClient, service: SearchService, principal: Principal
) -> None:
    notes = _notes(graph, models)
    other = Principal(tenant_id=principal.tenant_id + "x", sees_all_scopes=True)
    mine = []
    for i, title in enumerate(["Solar panel cleaning", "Solar panel angle", "Solar panel wiring"]):
        mine.append((await notes.save(principal, NoteDraft(title=title, body=f"Panel note {i} about rooftops."))).note)
    # The other tenant holds many notes nearer to the query than any of ours.
    for i in range(12):
        await notes.save(other, NoteDraft(title=f"Solar panels {i}", body="solar panels solar panels solar panels"))
    for mode in SearchMode:
        result = await _search(service, principal, "solar panels", mode=mode, limit=3)
        assert sorted(_ids(result)) == sorted(n.id for n in mine), mode
        assert all(hit.item.tenant_id == principal.tenant_id for hit in result.hits)
        theirs = await _search(service, other, "solar panels", mode=mode, limit=20)
        assert not set(_ids(theirs)) & {n.id for n in mine}


async def test_scope_types_tags_min_score_and_limit(
    graph: Graph, models: LocalModelClient, service: SearchService, principal: Principal
) -> None:
    notes = _notes(graph, models)
    shared = (await notes.save(principal, NoteDraft(title="Garden plan", body="Plant tomatoes in May #garden"))).note
    team = (await notes.save(principal, NoteDraft(title="Garden budget", body="Tomatoes seeds cost", scope=Scope.TEAM,
                                                  team_id="growers", kind="meeting"))).note
    assert _ids(await _search(service, principal, "tomatoes", scope=Scope.TEAM)) == [team.id]
    assert _ids(await _search(service, principal, "tomatoes", tags=["#garden"])) == [shared.id]
    assert _ids(await _search(service, principal, "tomatoes", types=["meeting"])) == [team.id]
    assert set(_ids(await _search(service, principal, "tomatoes", types=["Note"]))) == {shared.id, team.id}
    assert _ids(await _search(service, principal, "tomatoes", types=["Document"])) == []
    assert len((await _search(service, principal, "tomatoes", limit=1)).hits) == 1
    everything = await _search(service, principal, "tomatoes")
    top, second = everything.hits[0], everything.hits[1]
    # Between the two scores, not at one: keyword scores move a little between calls while other tests write to
    # the shared full-text index (the suite runs in parallel).
    floor = (top.score + second.score) / 2
    above = await _search(service, principal, "tomatoes", min_score=floor)
    assert [h.item.id for h in above.hits] == [top.item.id] and all(h.score >= floor for h in above.hits)
    growers = Principal(tenant_id=principal.tenant_id, team_ids=frozenset({"growers"}))
    outsider = Principal(tenant_id=principal.tenant_id, agent_id="someone")
    assert team.id in _ids(await _search(service, growers, "tomatoes"))
    assert team.id not in _ids(await _search(service, outsider, "tomatoes"))


async def test_archived_notes_are_not_found(
    graph: Graph, models: LocalModelClient, service: SearchService, principal: Principal
) -> None:
    notes = _notes(graph, models)
    note = (await notes.save(principal, NoteDraft(title="Old idea", body="zeppelin logistics"))).note
    await notes.archive(principal, note.id)
    for mode in (SearchMode.KEYWORD, SearchMode.VECTOR):
        assert note.id not in _ids(await _search(service, principal, "zeppelin logistics", mode=mode))


@pytest.mark.parametrize("kwargs", [
    {"query": ""}, {"query": "   "}, {"query": "x" * 2001}, {"query": "ok", "limit": 0},
    {"query": "ok", "limit": 101}, {"query": "ok", "min_score": -0.1}, {"query": "ok", "min_score": 1.5},
])
async def test_bad_input(service: SearchService, principal: Principal, kwargs: dict[str, object]) -> None:
    with pytest.raises(InvalidInput):
        await service.search(principal, SearchRequest(**kwargs))  # type: ignore[arg-type]


async def test_lucene_syntax_in_user_text_is_just_words(
    graph: Graph, models: LocalModelClient, service: SearchService, principal: Principal
) -> None:
    corpus = await _corpus(graph, models, principal)
    nasty = 'title:(XQ7731 AND "billing" OR job~2 -x* [a TO z] {b} \\ / && || ! ^ ?'
    result = await _search(service, principal, nasty, mode=SearchMode.KEYWORD)
    assert _ids(result)[0] == corpus["incident"].id


async def test_substring_fallback_when_lucene_finds_nothing(
    graph: Graph, models: LocalModelClient, service: SearchService, principal: Principal
) -> None:
    notes = _notes(graph, models)
    note = (await notes.save(principal, NoteDraft(title="Refrigerants", body="Difluoromethane replaces R-22."))).note
    result = await _search(service, principal, "fluorometh", mode=SearchMode.KEYWORD)
    assert _ids(result) == [note.id] and result.keyword.fallback
    assert result.hits[0].keyword is not None and result.hits[0].keyword.score == 1.0


async def test_the_fallback_finds_parts_of_words_in_any_script_and_scores_the_share_of_keywords_found(
    graph: Graph, models: LocalModelClient, service: SearchService, principal: Principal
) -> None:
    # Hangul is indexed a run to a term, found inside it; Han a character to a term, found by the query's own words.
    notes = _notes(graph, models)
    korean = (await notes.save(principal, NoteDraft(title="보안", body="사용자인증 절차를 설명한다."))).note
    chinese = (await notes.save(principal, NoteDraft(title="安全", body="用户认证流程说明。"))).note
    glossary = NoteDraft(title="Glossary", body="Difluoromethane and hydrofluorocarbons.")
    both = (await notes.save(principal, glossary)).note
    one = (await notes.save(principal, NoteDraft(title="Refrigerants", body="Difluoromethane replaces R-22."))).note

    result = await _search(service, principal, "인증", mode=SearchMode.KEYWORD)
    assert _ids(result) == [korean.id] and result.keyword.fallback
    result = await _search(service, principal, "认证流", mode=SearchMode.KEYWORD)
    assert _ids(result)[0] == chinese.id and not result.keyword.fallback
    result = await _search(service, principal, "fluorometh drofluoro", mode=SearchMode.KEYWORD)
    assert _ids(result) == [both.id, one.id] and result.keyword.fallback
    assert [hit.keyword.score for hit in result.hits if hit.keyword] == [1.0, 0.5]


async def test_the_fallback_sees_only_the_callers_tenant(
    graph: Graph, models: LocalModelClient, service: SearchService, principal: Principal
) -> None:
    other = Principal(tenant_id=principal.tenant_id + "-b", sees_all_scopes=True)
    await _notes(graph, models).save(other, NoteDraft(title="Refrigerants", body="Difluoromethane replaces R-22."))
    result = await _search(service, principal, "fluorometh", mode=SearchMode.KEYWORD)
    assert result.hits == []
    # Not even a row the Cypher filter behind the index drops: the index itself keeps to the tenant.
    where = HitFilter(tenant=principal.tenant_id, owner_keys=None)
    query = fallback_query(["fluorometh"], FULLTEXT_FIELDS, principal.tenant_id)
    assert query is not None and await graph.read(cypher.fallback_hits, query, ["fluorometh"], 20, where) == []
    mine = HitFilter(tenant=other.tenant_id, owner_keys=None)
    theirs = fallback_query(["fluorometh"], FULLTEXT_FIELDS, other.tenant_id)
    assert theirs is not None and len(await graph.read(cypher.fallback_hits, theirs, ["fluorometh"], 20, mine)) == 1


@pytest.fixture
def embedding_server() -> Iterator[OpenAICompatibleServer]:
    with run_openai_server(embedding_dimensions=384) as server:
        yield server


async def test_a_down_embedding_endpoint_skips_the_vector_channel(
    graph: Graph, embedding_server: OpenAICompatibleServer, principal: Principal
) -> None:
    remote = OpenAIModelClient(ModelConfig(base_url=embedding_server.base_url, api_key="sk-test",
                                           embedding_model="test-embed", max_retries=0, timeout_seconds=5))
    try:
        corpus = await _corpus(graph, remote, principal)
        service = SearchService(graph, remote, SearchConfig(cache_size=0))
        embedding_server.fail(times=10, status=503, route="embeddings")
        result = await _search(service, principal, "billing XQ7731")
        assert _ids(result)[0] == corpus["incident"].id
        assert not result.vector.ran and result.vector.skipped and "503" in result.vector.skipped
        assert result.keyword.ran
        with pytest.raises(Unavailable):
            await _search(service, principal, "billing", mode=SearchMode.VECTOR)
    finally:
        await remote.aclose()


async def test_repeated_queries_are_embedded_once(
    graph: Graph, embedding_server: OpenAICompatibleServer, principal: Principal
) -> None:
    remote = OpenAIModelClient(ModelConfig(base_url=embedding_server.base_url, api_key="sk-test",
                                           embedding_model="test-embed", max_retries=0))
    try:
        service = SearchService(graph, remote, SearchConfig(cache_size=8))
        for _ in range(3):
            await _search(service, principal, "the same question", mode=SearchMode.VECTOR)
        # The query once, and the similarity floor's background sample once (per model, services/similarity_floor.py)
        assert embedding_server.count("embeddings") == 2
    finally:
        await remote.aclose()


async def test_chinese_text_is_found_by_its_words(
    graph: Graph, models: LocalModelClient, service: SearchService, principal: Principal
) -> None:
    notes = _notes(graph, models)
    body = "用户认证：智能体搜索用户认证时找到精确关键字。"
    note = (await notes.save(principal, NoteDraft(title="登录流程", body=body))).note
    await notes.save(principal, NoteDraft(title="Cat care", body="Feed the cat twice a day."))
    result = await _search(service, principal, "用户认证", mode=SearchMode.KEYWORD)
    assert _ids(result) == [note.id]
    assert "**用户认证**" in result.hits[0].snippet().text


async def test_a_keyword_hit_the_vector_channel_did_not_return_is_fused_with_its_true_cosine(
    graph: Graph, models: LocalModelClient, principal: Principal
) -> None:
    """Five paraphrases of the query (none of its words) fill the vector channel's over-fetch at `limit: 2` (4 items),
    so the one note holding the query's words is a keyword hit the vector channel did not return: it is fused with
    its true cosine (services/vector_completion.py), the one the channel gives it when it digs deep enough."""
    notes = _notes(graph, models)
    paraphrase = "Projected earnings for the next three months of the financial year."
    for n in range(5):
        await notes.save(principal, NoteDraft(title=f"Sales outlook {n}", body=paraphrase))
    target = (await notes.save(principal, NoteDraft(
        title="Bake sale",
        body="The weather forecast said rain, so the quarterly revenue of our bake sale went to the dog shelter.",
    ))).note.id
    query = "quarterly revenue forecast"
    completing = SearchService(graph, models)  # the default
    plain = SearchService(graph, models, SearchConfig(vector_completion=False))

    shallow = await _search(completing, principal, query, limit=2)
    assert shallow.vector.hits == 4 and target not in _ids(await _search(completing, principal, query, limit=2,
                                                                         mode=SearchMode.VECTOR))
    hit = shallow.hits[0]
    assert hit.item.id == target and hit.keyword is not None and hit.keyword.score == 1.0
    assert hit.vector is not None and hit.vector.rank == 5  # after the four the channel returned
    # The cosine the vector channel itself gives the note when it brings every note (limit 10: 20 each).
    deep = next(h for h in (await _search(plain, principal, query, limit=10)).hits if h.item.id == target)
    assert deep.vector is not None and hit.vector.raw == pytest.approx(deep.vector.raw, abs=1e-4)
    assert hit.score == pytest.approx(0.4 + 0.6 * hit.vector.score)
    # Without completion the same note counts as unlike the query as unrelated text on the vector side.
    before = next(h for h in (await _search(plain, principal, query, limit=2)).hits if h.item.id == target)
    assert before.vector is None and before.score == pytest.approx(0.4)
