"""Reranking over real HTTP: vaultgraph against the real Neo4j, its rerank stage against the test server's real
`/v1/rerank` (word-overlap scores, `overlap_score`), so the order a reranked search returns can be predicted."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

from tests.agents.mcp_client import call, mcp_session
from tests.support.openai_server import Fault, OpenAICompatibleServer, overlap_score, run_openai_server
from tests.support.server import RunningServer, run_server
from vaultgraph.config import Settings

pytestmark = [pytest.mark.api, pytest.mark.graph]

SAVE = """mutation($input: NoteInput!) { saveNote(input: $input) { indexed note { id } } }"""
REPORT = """query($q: String!, $limit: Int, $mode: SearchMode) { searchReport(query: $q, limit: $limit, mode: $mode) {
  rerank { configured ran candidates model skipped }
  hits { item { id title } score rerankScore rerankRank keywordRank vectorRank }
} }"""
PACK = """query($q: String!) { contextPack(query: $q, budgetTokens: 2000, threshold: 0, maxItems: 5) {
  items { role item { id } score rerankScore reason } } }"""
QUERY = "kestrel nest height"
# Lucene's English analyzer stems "kestrels nesting heights" to the query's words, so the first note is a strong
# fused hit; the overlap scorer wants the words as written and gives it 0. The rerank must move it down.
NOTES = [
    ("Kestrels nesting at heights", "Kestrels nesting at great heights on the towers."),
    ("Kestrel nest height", "The kestrel nest height was measured in June."),
    ("Bird quiz", "A kestrel was one of the many names on the list for the pub quiz about birds."),
    ("Nest boxes", "Nest boxes for owls hang at a height of four metres."),
    ("Kestrel facts", "The kestrel hovers over the verge."),
]


@pytest.fixture
def reranker() -> Iterator[OpenAICompatibleServer]:
    with run_openai_server() as running:
        yield running


@asynccontextmanager
async def reranking(settings: Settings, tenant: str, reranker: OpenAICompatibleServer,
                    **update: Any) -> AsyncIterator[RunningServer]:
    """A vaultgraph for `tenant` whose searches rerank through the test server (offline embeddings)."""
    update = {"dev_tenant": tenant, "port": 0, "rerank_url": reranker.rerank_url, "rerank_model": "test-rerank",
              "rerank_timeout": 1.0, "rerank_max_retries": 1, **update}
    async with run_server(settings.model_copy(update=update)) as running:
        yield running


async def _corpus(server: RunningServer) -> dict[str, str]:
    """Title → id; and each note's text as the reranker reads it (title, then the body) by id."""
    ids = {}
    for title, body in NOTES:
        data = await server.data(SAVE, {"input": {"title": title, "body": body}})
        assert data["saveNote"]["indexed"] is True
        ids[title] = data["saveNote"]["note"]["id"]
    return ids


TEXT = {title: f"{title}\n{body}" for title, body in NOTES}


async def _report(server: RunningServer, **variables: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The searchReport for QUERY, and the response's extensions."""
    body = await server.graphql(REPORT, {"q": QUERY, **variables})
    assert "errors" not in body, body
    return body["data"]["searchReport"], body.get("extensions", {})


def _fused_order(hits: list[dict[str, Any]]) -> list[str]:
    """The hits as fusion ranked them: by fused score (which reranking leaves as it was), best first."""
    return [hit["item"]["title"] for hit in sorted(hits, key=lambda hit: -hit["score"])]


def _by_overlap(titles: list[str]) -> list[str]:
    """What the overlap scorer makes of candidates in fused order: best first, ties in fused order."""
    return sorted(titles, key=lambda title: -overlap_score(QUERY, TEXT[title]))


async def test_the_rerank_orders_the_hits_as_the_scorer_says(
    settings: Settings, tenant: str, reranker: OpenAICompatibleServer
) -> None:
    async with reranking(settings, tenant, reranker) as server:
        await _corpus(server)
        report, extensions = await _report(server)
    hits = report["hits"]
    assert report["rerank"] == {"configured": True, "ran": True, "candidates": len(hits), "model": "test-rerank",
                                "skipped": None}
    titles = [hit["item"]["title"] for hit in hits]
    fused = _fused_order(hits)
    assert titles == _by_overlap(fused) and titles != fused  # the scorer's order, which is not fusion's
    assert fused.index("Kestrels nesting at heights") < 2 and titles[-1] == "Kestrels nesting at heights"
    assert [hit["rerankScore"] for hit in hits] == [pytest.approx(overlap_score(QUERY, TEXT[t])) for t in titles]
    assert [hit["rerankRank"] for hit in hits] == list(range(1, len(hits) + 1))
    assert "warnings" not in extensions
    # The request had the shape Cohere, Jina and vLLM take: every candidate's title and passage, in fused order.
    [call] = reranker.requests("rerank")
    assert call.body == {"model": "test-rerank", "query": QUERY, "documents": [TEXT[t] for t in fused],
                         "top_n": len(hits)}


def _reversing(query: str, documents: list[str]) -> list[float]:
    """A scorer that likes the candidates sent last (fusion's worst) best: whatever fusion did, it is undone."""
    return [float(index) for index in range(len(documents))]


async def test_candidates_beyond_n_follow_in_fused_order_unscored(
    settings: Settings, tenant: str, reranker: OpenAICompatibleServer
) -> None:
    reranker.on_rerank(_reversing)
    async with reranking(settings, tenant, reranker, rerank_candidates=2) as server:
        await _corpus(server)
        report, _ = await _report(server, limit=5)
    hits = report["hits"]
    assert len(hits) == 5 and report["rerank"]["candidates"] == 2
    fused = _fused_order(hits)
    titles = [hit["item"]["title"] for hit in hits]
    assert titles == [fused[1], fused[0], *fused[2:]]
    assert [hit["rerankScore"] for hit in hits[:2]] == [1.0, 0.0]
    assert [hit["rerankRank"] for hit in hits] == [1, 2, None, None, None]
    assert all(hit["rerankScore"] is None for hit in hits[2:])
    [call] = reranker.requests("rerank")
    assert call.body["documents"] == [TEXT[t] for t in fused[:2]] and call.body["top_n"] == 2


async def test_limit_below_n_still_reranks_n_candidates(
    settings: Settings, tenant: str, reranker: OpenAICompatibleServer
) -> None:
    """The reranker sees the top N fused items whatever the page size, so a page of one is its best, not
    fusion's best."""
    reranker.on_rerank(_reversing)
    async with reranking(settings, tenant, reranker) as server:
        await _corpus(server)
        full, _ = await _report(server)
        page, _ = await _report(server, limit=1)
    [top] = page["hits"]
    assert top["item"]["title"] == full["hits"][0]["item"]["title"] == _fused_order(full["hits"])[-1]
    assert len(reranker.requests("rerank")[1].body["documents"]) == len(NOTES)


@pytest.mark.parametrize("fault", ["503", "timeout", "not json", "bad index"])
async def test_a_failing_reranker_leaves_the_fused_order_with_a_warning(
    settings: Settings, tenant: str, reranker: OpenAICompatibleServer, fault: str
) -> None:
    async with reranking(settings, tenant, reranker, rerank_timeout=0.5) as server:
        await _corpus(server)
        if fault == "503":
            reranker.fail(times=2, status=503, route="rerank")  # the first try and its one retry
        elif fault == "timeout":
            reranker.set_latency(5.0, route="rerank")
        elif fault == "not json":
            reranker.malformed(route="rerank")
        else:
            reranker.inject(Fault(body='{"results": [{"index": 99, "relevance_score": 0.5}]}'), route="rerank")
        started = time.monotonic()
        report, extensions = await _report(server)
        elapsed = time.monotonic() - started
        calls = len(reranker.requests("rerank"))
        if fault == "503":
            reranker.fail(times=2, status=503, route="rerank")
        pack = await server.graphql(PACK, {"q": QUERY}) if fault == "503" else None
    hits = report["hits"]
    assert [hit["item"]["title"] for hit in hits] == _fused_order(hits) and len(hits) == len(NOTES)
    assert all(hit["rerankScore"] is None and hit["rerankRank"] is None for hit in hits)
    rerank = report["rerank"]
    assert (rerank["configured"], rerank["ran"], rerank["candidates"]) == (True, False, len(NOTES))
    expected = {"503": "HTTP 503 (retried 1 time)", "timeout": "did not answer within 0.5 s",
                "not json": "not JSON", "bad index": "index is not one of the 5 documents"}[fault]
    assert expected in rerank["skipped"], rerank["skipped"]
    [warning] = extensions["warnings"]
    assert warning["code"] == "UNAVAILABLE" and warning["message"].startswith("reranking was skipped; hits in fused")
    assert expected in warning["message"]
    assert elapsed < 4.0  # the timeout (0.5 s) bounds the wait, not the endpoint's 5 s
    assert calls == (2 if fault == "503" else 1)  # a timeout is not retried
    if pack is not None:  # contextPack searches through the same stage: a working answer, and the same warning
        assert [w["code"] for w in pack["extensions"]["warnings"]] == ["UNAVAILABLE"]
        assert all(item["rerankScore"] is None for item in pack["data"]["contextPack"]["items"])


async def test_one_failed_attempt_is_retried_and_the_second_reranks(
    settings: Settings, tenant: str, reranker: OpenAICompatibleServer
) -> None:
    async with reranking(settings, tenant, reranker) as server:
        await _corpus(server)
        reranker.fail(times=1, status=502, route="rerank")
        report, extensions = await _report(server)
    assert report["rerank"]["ran"] is True and "warnings" not in extensions
    assert report["hits"][0]["item"]["title"] == "Kestrel nest height"
    assert len(reranker.requests("rerank")) == 2


async def test_the_api_key_goes_as_a_bearer_and_a_refused_one_is_a_warning(
    settings: Settings, tenant: str
) -> None:
    with run_openai_server(api_key="rk-secret") as keyed:
        async with reranking(settings, tenant, keyed, rerank_api_key="rk-secret") as server:
            await _corpus(server)
            report, _ = await _report(server)
        assert report["rerank"]["ran"] is True
        assert keyed.requests("rerank")[0].headers["authorization"] == "Bearer rk-secret"
        async with reranking(settings, tenant, keyed, rerank_api_key="rk-wrong") as server:
            report, extensions = await _report(server)
    assert report["rerank"]["ran"] is False and "refused the key (HTTP 401)" in report["rerank"]["skipped"]
    assert "rk-wrong" not in str(extensions) and "rk-wrong" not in str(report)  # a key is never quoted
    assert len(keyed.requests("rerank")) == 2  # a refused key is not retried


async def test_context_pack_takes_its_hits_in_the_rerankers_order(
    settings: Settings, tenant: str, reranker: OpenAICompatibleServer
) -> None:
    async with reranking(settings, tenant, reranker) as server:
        await _corpus(server)
        body = await server.graphql(PACK, {"q": QUERY})
    hits = [item for item in body["data"]["contextPack"]["items"] if item["role"] == "HIT"]
    scores = [item["rerankScore"] for item in hits]
    assert scores == sorted(scores, reverse=True) and scores[0] == pytest.approx(1.0)
    assert "reranked 1.00" in hits[0]["reason"] and "warnings" not in body.get("extensions", {})


async def test_the_mcp_search_tool_returns_the_rerankers_order(
    settings: Settings, tenant: str, reranker: OpenAICompatibleServer
) -> None:
    async with reranking(settings, tenant, reranker) as server:
        ids = await _corpus(server)
        async with mcp_session(server.url) as session:
            found = await call(session, "vault_search", query=QUERY, maxResults=5)
    results = found["results"]
    titles = {ids[title]: title for title in ids}
    fused = [titles[r["id"]] for r in sorted(results, key=lambda r: -r["score"])]
    assert [titles[r["id"]] for r in results] == _by_overlap(fused) != fused
    assert [r["rerankScore"] for r in results] == [round(overlap_score(QUERY, TEXT[t]), 4) for t in _by_overlap(fused)]


async def test_ghost_candidates_are_not_reranked(
    settings: Settings, tenant: str, reranker: OpenAICompatibleServer
) -> None:
    """Fuzzy link candidates only need fused scores above a floor: no rerank call on a save or a `ghosts` read."""
    async with reranking(settings, tenant, reranker) as server:
        ids = await _corpus(server)
        await server.data(SAVE, {"input": {"title": "Survey", "body": "See [[Kestrel Nest Heights]]."}})
        [ghost] = (await server.data("{ ghosts { ref candidates { item { id } } } }"))["ghosts"]
    assert ghost["candidates"] and {c["item"]["id"] for c in ghost["candidates"]} <= set(ids.values())
    assert reranker.count("rerank") == 0


async def test_reranking_is_off_by_default(server: RunningServer) -> None:
    for title, body in NOTES:
        await server.data(SAVE, {"input": {"title": title, "body": body}})
    report, extensions = await _report(server)
    assert report["rerank"] == {"configured": False, "ran": False, "candidates": 0, "model": None, "skipped": None}
    hits = report["hits"]
    assert [hit["item"]["title"] for hit in hits] == _fused_order(hits)
    assert all(hit["rerankScore"] is None and hit["rerankRank"] is None for hit in hits)
    assert "warnings" not in extensions


@pytest.mark.usefixtures("env_clean")
def test_a_rerank_url_needs_a_model_and_http() -> None:
    with pytest.raises(ValueError, match="VAULTGRAPH_RERANK_MODEL is required"):
        Settings(rerank_url="http://127.0.0.1:1/v1/rerank")
    with pytest.raises(ValueError, match="http:// or https://"):
        Settings(rerank_url="127.0.0.1:1/v1/rerank", rerank_model="m")
