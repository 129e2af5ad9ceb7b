"""Search, suggestions and ghost review over real HTTP, as a client sees them (offline model, real Neo4j)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from tests.support.openai_server import OpenAICompatibleServer, run_openai_server
from tests.support.server import RunningServer, run_server
from tests.support.waiting import eventually
from vaultgraph.config import Settings

pytestmark = [pytest.mark.api, pytest.mark.graph]

SAVE = """mutation($input: NoteInput!) { saveNote(input: $input) { indexed note { id } } }"""
SEARCH = """
query($q: String!, $mode: SearchMode, $fusion: Fusion, $limit: Int, $minScore: Float) {
  search(query: $q, mode: $mode, fusion: $fusion, limit: $limit, minScore: $minScore) {
    item { id title } score keywordScore vectorScore keywordRank vectorRank fusion snippet matchedTerms
    keyword { score raw rank } vector { score raw rank }
    via { linkId type from { id } to { id } }
  }
}
"""
REPORT = """
query($q: String!) { searchReport(query: $q) {
  mode fusion terms keyword { ran hits skipped fallback } vector { ran hits skipped fallback } hits { item { id } }
} }
"""


ALICE = {"X-Vaultgraph-Agent": "alice"}  # development mode: an agent's principal, as test_scopes.py makes it
BOB = {"X-Vaultgraph-Agent": "bob"}
ALICES = {"scope": "PERSONAL", "agentId": "alice"}


async def _save(server: RunningServer, title: str, body: str, owner: dict[str, str] | None = None,
                headers: dict[str, str] | None = None) -> str:
    data = await server.data(SAVE, {"input": {"title": title, "body": body, **(owner or {})}}, headers)
    assert data["saveNote"]["indexed"] is True
    return str(data["saveNote"]["note"]["id"])


async def _hits(server: RunningServer, query: str, headers: dict[str, str] | None = None,
                **variables: Any) -> list[dict[str, Any]]:
    hits: list[dict[str, Any]] = (await server.data(SEARCH, {"q": query, **variables}, headers))["search"]
    return hits


async def test_hybrid_search_explains_each_hit(server: RunningServer) -> None:
    both = await _save(server, "Tuning the vector index", "Tune the vector index for recall.")
    await _save(server, "Cat care", "Feed the cat twice a day.")
    hits = (await server.data(SEARCH, {"q": "vector index tuning"}))["search"]
    top = hits[0]
    assert top["item"] == {"id": both, "title": "Tuning the vector index"}
    assert top["fusion"] == "WEIGHTED" and top["keywordRank"] == 1 and top["vectorRank"] == 1
    # The default normalisation: the keyword channel's best scores 1.0; a cosine runs from the query's similarity
    # floor (0) to a perfect match (1), so a close but imperfect match scores under 1.
    assert top["keywordScore"] == 1.0 and 0 < top["vectorScore"] < 1
    assert top["score"] == pytest.approx(0.4 + 0.6 * top["vectorScore"])
    assert top["keyword"]["raw"] > 0 and 0 < top["vector"]["raw"] <= 1
    assert "**vector** **index**" in top["snippet"] and set(top["matchedTerms"]) >= {"vector", "index"}
    assert top["via"] == []
    rrf = (await server.data(SEARCH, {"q": "vector index tuning", "fusion": "RRF"}))["search"]
    assert rrf[0]["fusion"] == "RRF" and rrf[0]["score"] == pytest.approx(1.0)


def _unboosted(hit: dict[str, Any]) -> float:
    return float(0.4 * (hit["keywordScore"] or 0.0) + 0.6 * (hit["vectorScore"] or 0.0))


async def test_the_callers_own_personal_items_score_1_2_times(server: RunningServer) -> None:
    mine = await _save(server, "Heat pump service", "Clean the heat pump filter and check the refrigerant.",
                       ALICES, ALICE)
    shared = await _save(server, "Heat pump service", "Clean the heat pump filter and check the refrigerant level.")
    hits = await _hits(server, "heat pump filter refrigerant", ALICE)
    by_id = {hit["item"]["id"]: hit for hit in hits}
    # Scores compare within one answer: the full-text statistics all tenants share move between two calls.
    assert by_id[mine]["score"] == pytest.approx(1.2 * _unboosted(by_id[mine]))
    assert by_id[shared]["score"] == pytest.approx(_unboosted(by_id[shared]))
    assert [hit["item"]["id"] for hit in hits[:2]] == [mine, shared]
    # A caller without a personal space (development mode's local user) gets no boost, even on alice's item.
    for hit in await _hits(server, "heat pump filter refrigerant"):
        assert hit["score"] == pytest.approx(_unboosted(hit))


async def test_a_text_both_personal_and_shared_appears_once_as_the_callers_own(server: RunningServer) -> None:
    title, body = "Boiler reset", "Hold the boiler reset button for ten seconds."
    mine = await _save(server, title, body, ALICES, ALICE)
    shared = await _save(server, title, body)
    other = await _save(server, "Boiler pressure", "Top up the boiler pressure to 1.5 bar.")
    alice = [hit["item"]["id"] for hit in await _hits(server, "boiler reset button", ALICE)]
    assert alice.count(mine) == 1 and shared not in alice and other in alice
    assert alice[0] == mine
    # Bob cannot see alice's copy, so the shared one is his hit; the local user has no personal space: both.
    bob = [hit["item"]["id"] for hit in await _hits(server, "boiler reset button", BOB)]
    assert shared in bob and mine not in bob
    everyone = [hit["item"]["id"] for hit in await _hits(server, "boiler reset button")]
    assert {mine, shared, other} <= set(everyone)


async def test_graph_mode_shows_the_path(server: RunningServer) -> None:
    target = await _save(server, "Battery storage", "Lithium cell chemistry.")
    hit = await _save(server, "Solar inverter sizing", "Size the inverter; see [[Battery storage]].")
    hits = (await server.data(SEARCH, {"q": "inverter sizing", "mode": "GRAPH", "limit": 1}))["search"]
    assert [h["item"]["id"] for h in hits] == [hit, target]
    [via] = hits[1]["via"]
    assert (via["from"]["id"], via["type"], via["to"]["id"]) == (hit, "WIKILINK", target)


async def test_search_report_and_bad_input(server: RunningServer) -> None:
    await _save(server, "Garden", "Tomatoes in May.")
    report = (await server.data(REPORT, {"q": "Tomatoes?"}))["searchReport"]
    assert report["mode"] == "HYBRID" and report["terms"] == ["tomatoes"]
    assert report["keyword"] == {"ran": True, "hits": 1, "skipped": None, "fallback": False}
    assert report["vector"]["ran"] is True and report["vector"]["skipped"] is None
    for variables in ({"q": "  "}, {"q": "x" * 2001}, {"q": "ok", "limit": 101}, {"q": "ok", "minScore": 2.0}):
        body = await server.graphql(SEARCH, variables)
        assert body["errors"][0]["extensions"]["code"] == "INVALID_INPUT", variables


async def test_suggestions_and_accepting_one(server: RunningServer) -> None:
    note = await _save(server, "Solar panels on the roof", "We mount solar panels on the south roof.")
    similar = await _save(server, "Photovoltaic installation", "Installing photovoltaic modules on a rooftop.")
    query = """query($id: ID!) { note(id: $id) { suggestions(limit: 5) { target { id } similarity passage } } }"""
    [first, *_] = (await server.data(query, {"id": note}))["note"]["suggestions"]
    assert first["target"]["id"] == similar and 0.3 <= first["similarity"] <= 1 and first["passage"]
    accept = """mutation($n: ID!, $t: ID!) { acceptSuggestion(noteId: $n, targetId: $t) {
      type origin confidence from { id } to { id } } }"""
    link = (await server.data(accept, {"n": note, "t": similar}))["acceptSuggestion"]
    assert link == {"type": "RELATED", "origin": "USER", "confidence": None, "from": {"id": note},
                    "to": {"id": similar}}
    again = await server.graphql(accept, {"n": note, "t": similar})
    assert again["errors"][0]["extensions"]["code"] == "CONFLICT"


async def test_ghosts_list_unresolved_refs_with_candidates(server: RunningServer) -> None:
    overview = await _save(server, "Octipus architecture overview", "How the octipus architecture fits together.")
    source = await _save(server, "Plan", "Read [[Octipus Architecture]] first.")
    query = """{ ghosts { ref text links sources { id } candidates { item { id } score } } }"""
    [ghost] = (await server.data(query))["ghosts"]
    assert (ghost["ref"], ghost["text"], ghost["links"]) == ("octipus-architecture", "Octipus Architecture", 1)
    assert ghost["sources"] == [{"id": source}] and ghost["candidates"][0]["item"]["id"] == overview


@pytest.fixture
def openai() -> Iterator[OpenAICompatibleServer]:
    with run_openai_server(embedding_dimensions=384) as running:
        yield running


@pytest.fixture
async def remote_server(settings: Settings, tenant: str, openai: OpenAICompatibleServer
                        ) -> AsyncIterator[RunningServer]:
    update: dict[str, Any] = {"dev_tenant": tenant, "port": 0, "openai_base_url": openai.base_url,
                              "openai_api_key": "sk-test", "embedding_model": "test-embed", "model_max_retries": 0,
                              "search_query_cache": 0}
    async with run_server(settings.model_copy(update=update)) as running:
        yield running


async def test_a_down_embedding_endpoint_answers_with_keywords_and_a_warning(
    remote_server: RunningServer, openai: OpenAICompatibleServer
) -> None:
    note = await _save(remote_server, "Billing incident", "Error XQ7731 in the billing job.")
    openai.fail(times=20, status=503, route="embeddings")
    body = await remote_server.graphql(SEARCH, {"q": "billing XQ7731"})
    assert [h["item"]["id"] for h in body["data"]["search"]] == [note]
    [warning] = body["extensions"]["warnings"]
    assert warning["code"] == "UNAVAILABLE" and "vector search was skipped" in warning["message"]
    vector_only = await remote_server.graphql(SEARCH, {"q": "billing", "mode": "VECTOR"})
    assert vector_only["errors"][0]["extensions"]["code"] == "UNAVAILABLE"


CREATE_DOC = "mutation($input: DocumentInput!) { createDocument(input: $input) { id category } }"
BY_CATEGORY = {
    "search": "search(query: $q, mode: KEYWORD, categories: $categories) { item { id } }",
    "contextPack": "contextPack(query: $q, budgetTokens: 500, threshold: 0, categories: $categories) "
                   "{ items { item { id } } }",
}


def _by_category(*fields: str) -> str:
    return "query($q: String!, $categories: [String!]) { " + " ".join(BY_CATEGORY[f] for f in fields) + " }"


async def test_search_and_context_pack_filter_by_taxonomy_category(server: RunningServer) -> None:
    async def doc(path: str, title: str, category: str) -> str:
        created = (await server.data(CREATE_DOC, {"input": {"path": path, "content": f"# {title}\n", "title": title,
                                                            "category": category}}))["createDocument"]
        assert created["category"] == category
        return str(created["id"])

    medical = await doc("insulin-dosing.md", "Insulin dosing", "Medical")
    finance = await doc("insulin-market.md", "Insulin market shares", "Finance")
    note = await _save(server, "Insulin notes", "Insulin pens in the fridge.")

    async def found(categories: list[str] | None) -> tuple[set[str], set[str]]:
        data = await server.data(_by_category("search", "contextPack"), {"q": "insulin", "categories": categories})
        return ({hit["item"]["id"] for hit in data["search"]},
                {entry["item"]["id"] for entry in data["contextPack"]["items"]})

    assert await found(None) == ({medical, finance, note},) * 2
    assert await found(["medical"]) == ({medical},) * 2  # the taxonomy's spelling, case-insensitive
    assert await found(["Medical", "Finance"]) == ({medical, finance},) * 2
    for field, bad in [("search", ["Astrology"]), ("contextPack", ["Medical", "astrology"])]:
        body = await server.graphql(_by_category(field), {"q": "insulin", "categories": bad})
        [error] = body["errors"]
        assert (error["path"], error["extensions"]) == ([field], {"code": "INVALID_INPUT", "field": "categories"})
        message = error["message"]
        assert "'astrology'" in message.casefold() and "Medical" in message and "Technology" in message, message


FLOOR_REPORT = """query($q: String!, $mode: SearchMode) { searchReport(query: $q, mode: $mode) {
  vector { ran hits floor } keyword { hits } hits { item { id } score keywordScore vectorScore vector { raw } }
} }"""
CORPUS = [
    ("Cat care", "Feed the cat twice a day and brush its coat every week."),
    ("Sourdough starter", "Feed the starter with flour and water, then let it rise overnight."),
    ("Heat pump service", "Clean the filter of the heat pump and check the refrigerant each autumn."),
    ("Quarterly budget", "Operating costs rose by four percent; travel spending fell."),
    ("Train timetable", "The coastal line runs every hour from platform four."),
    ("Garden plan", "Plant tomatoes in May and water them in the evening."),
]


async def test_a_nonsense_query_finds_no_neighbours_only_genuine_keyword_hits(server: RunningServer) -> None:
    ids = {title: await _save(server, title, body) for title, body in CORPUS}

    async def report(query: str, mode: str) -> dict[str, Any]:
        result: dict[str, Any] = (await server.data(FLOOR_REPORT, {"q": query, "mode": mode}))["searchReport"]
        return result

    nonsense = await report("qwzx blorf", "VECTOR")
    assert nonsense["hits"] == [] and nonsense["vector"]["ran"] is True and nonsense["vector"]["hits"] == 0
    assert (await report("qwzx blorf", "HYBRID"))["hits"] == []
    # A genuine question still finds its note by meaning alone, above the floor the report gives.
    genuine = await report("how should I look after my kitten", "VECTOR")
    assert genuine["hits"][0]["item"]["id"] == ids["Cat care"]
    assert 0 < genuine["vector"]["floor"] < genuine["hits"][0]["vector"]["raw"]
    assert all(hit["vector"]["raw"] > genuine["vector"]["floor"] for hit in genuine["hits"])
    # A word of the nonsense that a note holds is a genuine keyword hit, and the only hit.
    blorf = await _save(server, "Blorf rollout", "The blorf service restarts nightly.")
    hybrid = await report("qwzx blorf", "HYBRID")
    assert [hit["item"]["id"] for hit in hybrid["hits"]] == [blorf] and hybrid["hits"][0]["keywordScore"] == 1.0


async def test_the_keyword_channel_reads_every_write_of_a_title_or_a_body(server: RunningServer) -> None:
    """A node's one bag of words (graph/search_text.py) is written with the text it is made of: a renamed note, its
    new body and a document's new title are found by their new words at once, and no longer by the old ones."""
    note = await _save(server, "Zebra migration", "Herds cross the river.")
    document = (await server.data("mutation($input: DocumentInput!) { createDocument(input: $input) { id } }",
                                  {"input": {"path": "field/antelope.md", "title": "Okapi sightings",
                                             "content": ""}}))["createDocument"]["id"]
    # An empty file: enrichment skips it, so no topic (named after the title while it has no heading) holds the
    # old title until the next enrichment, and the document's own text is all there is to find it by.

    async def found(word: str) -> set[str]:
        return {hit["item"]["id"] for hit in await _hits(server, word, mode="KEYWORD")}

    assert (await found("zebra"), await found("herds"), await found("okapi"), await found("antelope")) == (
        {note}, {note}, {document}, {document})
    await server.data("mutation($input: NoteInput!) { saveNote(input: $input) { note { id } } }",
                      {"input": {"id": note, "title": "Quagga migration", "body": "Herds cross the lake."}})
    assert (await found("zebra"), await found("river"), await found("quagga"), await found("lake")) == (
        set(), set(), {note}, {note})

    async def stage() -> str:
        read = await server.data("query($id: ID!) { document(id: $id) { enrichment { stage } } }", {"id": document})
        return str(read["document"]["enrichment"]["stage"])

    await eventually(stage, lambda seen: seen in ("SKIPPED", "DONE", "FAILED"), 60, "the empty file's enrichment")
    await server.data("mutation($id: ID!) { updateDocument(id: $id, input: {title: \"Bongo sightings\"}) { id } }",
                      {"id": document})
    assert (await found("okapi"), await found("bongo"), await found("antelope")) == (set(), {document}, {document})
