"""generateWeeklyReview through the real server, the real `openai` client and the local OpenAI-compatible server:
the review cites the week's daily notes and newly enriched documents with wikilinks that become edges (backlinks),
respects the week's boundaries and the tenant, drops links to anything it was not given, and overwrites itself."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest

from tests.support.openai_server import OpenAICompatibleServer, run_openai_server
from tests.support.server import RunningServer, run_server
from vaultgraph.config import Settings
from vaultgraph.domain import Document, Enrichment, EnrichmentStage, Note, Owner, Scope
from vaultgraph.services import weekly_review as service

pytestmark = [pytest.mark.api, pytest.mark.graph]

SAVE = "mutation($input: NoteInput!) { saveNote(input: $input) { note { id slug } } }"
CREATE = "mutation($input: DocumentInput!) { createDocument(input: $input) { id path } }"
REVIEW = """
mutation($week: String) { generateWeeklyReview(week: $week) {
  week startDate endDate created changed model leftOut droppedLinks
  note { id slug title kind body outgoing { edges { node { ref isGhost to { id } } } } }
  sources { role ref sent truncated cited item { id title } }
} }
"""
BACKLINKS = """
query($slug: String!) { note(slug: $slug) { backlinks { edges { node { from { id title } } } } } }
"""
DOC_BACKLINKS = "query($id: ID!) { document(id: $id) { backlinks { edges { node { from { id } } } } } }"
SOURCE_HEADING = re.compile(r"^### \[\[([^\]]+)\]\]", re.MULTILINE)


def is_review(body: dict[str, Any]) -> bool:
    return str(body["messages"][0]["content"]).startswith("You write the weekly review")


def review_prompt(body: dict[str, Any]) -> str:
    return str(body["messages"][1]["content"])


def enrichment_reply(body: dict[str, Any]) -> str:
    """Summaries for a summarize batch (one per numbered document); no links for a classify call."""
    user = str(body["messages"][-1]["content"])
    count = len(re.findall(r"^### Document \d+", user, re.MULTILINE))
    if count:
        return json.dumps([{"idx": i, "summary": f"Summary of document {i} of the batch.", "category": "Others"}
                           for i in range(1, count + 1)])
    return "[]"


def citing(extra: str = "") -> Any:
    """A review that cites every source by the ref it was shown, plus `extra`."""
    def reply(body: dict[str, Any]) -> str:
        if not is_review(body):
            return enrichment_reply(body)
        refs = SOURCE_HEADING.findall(review_prompt(body))
        lines = "\n".join(f"- Worked on [[{ref}]]." for ref in refs)
        return f"A busy week.\n\n## Highlights\n{lines}\n{extra}"
    return reply


@pytest.fixture
def model() -> Iterator[OpenAICompatibleServer]:
    with run_openai_server(embedding_dimensions=384) as running:
        yield running


@pytest.fixture
async def api(settings: Settings, tenant: str, model: OpenAICompatibleServer) -> AsyncIterator[RunningServer]:
    update: dict[str, Any] = {
        "dev_tenant": tenant, "port": 0, "enrichment_tenants": [tenant, f"{tenant}o"],
        "openai_base_url": model.base_url, "openai_api_key": "sk-test", "chat_model": "test-chat",
        "embedding_model": "test-embed", "model_max_retries": 0,
    }
    async with run_server(settings.model_copy(update=update)) as running:
        yield running


async def daily(server: RunningServer, day: date, body: str, tenant: str | None = None) -> str:
    headers = {"X-Vaultgraph-Tenant": tenant} if tenant else None
    note = {"title": day.isoformat(), "slug": f"daily/{day.isoformat()}", "kind": "daily",
            "noteDate": day.isoformat(), "body": f"# {day.isoformat()}\n{body}\n"}
    return str((await server.data(SAVE, {"input": note}, headers))["saveNote"]["note"]["id"])


async def enriched(server: RunningServer, path: str, content: str) -> str:
    document = str((await server.data(CREATE, {"input": {"path": path, "content": content}}))["createDocument"]["id"])
    async with asyncio.timeout(60):
        while True:
            state = await server.data("query($id: ID!) { document(id: $id) { enrichment { stage error } } }",
                                      {"id": document})
            stage = state["document"]["enrichment"]["stage"]
            if stage == "DONE":
                return document
            assert stage not in ("FAILED", "SKIPPED"), state
            await asyncio.sleep(0.1)


def this_week() -> tuple[str, date, date]:
    today = datetime.now(UTC).date()
    year, number, _ = today.isocalendar()
    return f"{year}-W{number:02d}", date.fromisocalendar(year, number, 1), today


async def test_the_review_cites_the_weeks_daily_notes_and_new_documents_with_links_that_become_backlinks(
    api: RunningServer, model: OpenAICompatibleServer, tenant: str
) -> None:
    week, monday, today = this_week()
    other_day = monday if today != monday else monday + timedelta(days=1)
    model.on_chat(citing("Also see [[Invented Thing|something I made up]] and [[Quarterly Plan]]."))
    first = await daily(api, other_day, "- 09:00 Planned the rollout of the new search.")
    captured = await api.data("mutation { captureNote(text: \"Shipped the weekly review\") { id slug } }")
    before = await daily(api, monday - timedelta(days=1), "- Last Sunday: nothing to see.")
    after = await daily(api, monday + timedelta(days=7), "- Next Monday: not yet.")
    foreign = await daily(api, other_day, "- Another tenant's private day.", tenant=f"{tenant}o")
    setup = await enriched(api, "guides/setup.md", "# Setup\n\nInstall it with make run.")
    runbook = await enriched(api, "ops/runbook.md", "# Runbook\n\nWhat to do when Neo4j is down.")

    review = (await api.data(REVIEW, {"week": week}))["generateWeeklyReview"]

    assert (review["week"], review["startDate"], review["endDate"]) == (
        week, monday.isoformat(), (monday + timedelta(days=6)).isoformat())
    assert review["created"] is True and review["model"] == "test-chat" and review["leftOut"] == 0
    note = review["note"]
    assert (note["slug"], note["title"], note["kind"]) == (
        f"reviews/{week.lower()}", f"Weekly review {week}", "review")
    sources = {s["item"]["id"]: s for s in review["sources"]}
    expected_notes = {first, captured["captureNote"]["id"]}
    assert set(sources) == expected_notes | {setup, runbook}  # not last week's, next week's or another tenant's
    assert {before, after, foreign}.isdisjoint(sources)
    assert all(s["sent"] and s["cited"] and not s["truncated"] for s in review["sources"])
    assert sources[setup]["ref"] == "guides/setup.md" and sources[first]["ref"] == f"daily/{other_day}"
    assert [s["role"] for s in review["sources"]][:2] == ["DAILY_NOTE", "DAILY_NOTE"]
    # Links to what the model was not given are text, not links.
    assert review["droppedLinks"] == ["Invented Thing", "Quarterly Plan"]
    assert "something I made up" in note["body"] and "[[Invented Thing" not in note["body"]
    assert "Quarterly Plan" in note["body"] and "[[Quarterly Plan" not in note["body"]
    targets = {e["node"]["to"]["id"] for e in note["outgoing"]["edges"] if e["node"]["to"]}
    assert targets == expected_notes | {setup, runbook}
    assert not any(e["node"]["isGhost"] for e in note["outgoing"]["edges"])
    # The prompt held this week's notes only, and the request went through the real client.
    [call] = [r.body for r in model.requests("chat") if is_review(r.body)]
    prompt = review_prompt(call)
    assert "Planned the rollout" in prompt and "Shipped the weekly review" in prompt and "Install it" not in prompt
    assert "Summary of document" in prompt
    assert "Last Sunday" not in prompt and "Next Monday" not in prompt and "Another tenant" not in prompt

    for slug in (f"daily/{other_day}", f"daily/{today}"):
        backlinks = (await api.data(BACKLINKS, {"slug": slug}))["note"]["backlinks"]["edges"]
        assert [b["node"]["from"]["id"] for b in backlinks] == [note["id"]]
    setup_backlinks = (await api.data(DOC_BACKLINKS, {"id": setup}))["document"]["backlinks"]["edges"]
    assert [b["node"]["from"]["id"] for b in setup_backlinks] == [note["id"]]

    # Regenerating overwrites the same note; a source no longer cited loses its backlink.
    model.on_chat(lambda body: f"Quieter than it looked. Only [[{other_day}]] mattered."
                  if is_review(body) else enrichment_reply(body))
    again = (await api.data(REVIEW, {"week": week}))["generateWeeklyReview"]
    assert again["note"]["id"] == note["id"] and again["created"] is False and again["changed"] is True
    assert again["droppedLinks"] == []
    assert f"[[daily/{other_day}|{other_day}]]" in again["note"]["body"]  # rewritten to the exact ref
    assert [s["item"]["id"] for s in again["sources"] if s["cited"]] == [first]
    runbook_backlinks = (await api.data(DOC_BACKLINKS, {"id": runbook}))["document"]["backlinks"]["edges"]
    assert runbook_backlinks == []
    notes = await api.data("{ notes(kind: \"review\") { totalCount } }")
    assert notes["notes"]["totalCount"] == 1

    # The other tenant's review sees its own day only, and its note is its own.
    theirs = await api.graphql(REVIEW, {"week": week}, {"X-Vaultgraph-Tenant": f"{tenant}o"})
    assert "errors" not in theirs, theirs
    their_review = theirs["data"]["generateWeeklyReview"]
    assert [s["item"]["id"] for s in their_review["sources"]] == [foreign]
    assert their_review["note"]["id"] != note["id"] and their_review["created"] is True


async def test_bad_weeks_and_empty_weeks_are_refused_without_a_model_call(
    api: RunningServer, model: OpenAICompatibleServer
) -> None:
    model.on_chat(citing())
    for week, code in (("2026-W60", "INVALID_INPUT"), ("last week", "INVALID_INPUT"), ("2001-W01", "NOT_FOUND")):
        body = await api.graphql(REVIEW, {"week": week})
        assert body["data"] is None
        assert body["errors"][0]["extensions"]["code"] == code, body
    assert not [r for r in model.requests("chat") if is_review(r.body)]
    assert (await api.data("{ notes(kind: \"review\") { totalCount } }"))["notes"]["totalCount"] == 0


async def test_a_failing_model_saves_nothing(api: RunningServer, model: OpenAICompatibleServer) -> None:
    week, monday, _ = this_week()
    await daily(api, monday, "- Something happened.")
    model.fail(times=5, status=500, route="chat")
    body = await api.graphql(REVIEW, {"week": week})
    assert body["errors"][0]["extensions"]["code"] == "UNAVAILABLE"
    assert (await api.data("{ notes(kind: \"review\") { totalCount } }"))["notes"]["totalCount"] == 0


async def test_without_a_chat_model_the_review_is_unavailable_and_nothing_is_written(server: RunningServer) -> None:
    week, monday, _ = this_week()
    await daily(server, monday, "- Something happened.")
    body = await server.graphql(REVIEW, {"week": week})
    [error] = body["errors"]
    assert error["extensions"]["code"] == "UNAVAILABLE" and "OPENAI_BASE_URL" in error["message"]
    missing = await server.graphql(BACKLINKS, {"slug": f"reviews/{week.lower()}"})
    assert missing["errors"][0]["extensions"]["code"] == "NOT_FOUND"


def _note(day: date, body: str) -> Note:
    now = datetime.now(UTC)
    return Note(id=f"note_{day}", tenant_id="t", owner=Owner(Scope.SHARED), slug=f"daily/{day}", title=str(day),
                body=body, body_sha256="", frontmatter={}, tags=(), kind="daily", note_date=day, pinned=False,
                archived_at=None, created_by_agent_id=None, indexed=True, created_at=now, updated_at=now)


def _document(n: int, summary: str) -> Document:
    now = datetime.now(UTC)
    return Document(id=f"doc_{n}", tenant_id="t", owner=Owner(Scope.SHARED), path=f"docs/d{n}.md", title=f"D{n}",
                    doc_type="markdown", content_hash=None, size_bytes=1, summary=summary, category=None,
                    metadata={}, enrichment=Enrichment(EnrichmentStage.DONE, None, now), created_at=now,
                    updated_at=now)


@pytest.mark.text
def test_the_request_is_bounded_and_says_what_it_left_out() -> None:
    monday = date(2026, 11, 23)
    notes = [_note(monday + timedelta(days=i), f"- line {i}\n" + "word " * 1000) for i in range(7)]
    documents = [_document(n, "A sentence of summary. " * 60) for n in range(40)]
    sources, prompt = service.bounded_sources("2026-W48", monday, monday + timedelta(days=6), notes, documents)
    assert len(prompt) <= service.MAX_SOURCE_CHARS + 100
    assert all(s.truncated for s in sources if s.sent)
    sent = [s for s in sources if s.sent]
    assert [s.role for s in sent[:7]] == [service.SourceRole.DAILY_NOTE] * 7  # daily notes come first
    assert 7 < len(sent) < len(sources)  # some documents did not fit: listed, not sent
    body, cited, dropped = service.check_links(
        "See [[daily/2026-11-23]], [[D0]], [[docs/d1]] and [[Nope|n]] ![[Other]].", sources)
    assert body == "See [[daily/2026-11-23]], [[docs/d0.md|D0]], [[docs/d1.md|docs/d1]] and n Other."
    assert cited == {"daily/2026-11-23", "docs/d0.md", "docs/d1.md"} and dropped == ["Nope", "Other"]
