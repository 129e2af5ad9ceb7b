"""Parsed and validated documents are cached per query text (schema/extensions/document_cache.py): a cached success must
never let through what the limits refuse, and a refusal is never cached."""

from __future__ import annotations

import pytest

from tests.support.server import RunningServer

pytestmark = [pytest.mark.api, pytest.mark.graph]

# Cost = n × (1 + n) with the page size from the variable: 30 for n = 5, 10,100 (over 10,000) for n = 100.
SIZED = "query($n: Int) { notes(first: $n) { edges { node { backlinks(first: $n) { totalCount } } } } }"


async def test_the_same_text_is_judged_again_when_the_variables_the_cost_rule_reads_change(
    server: RunningServer,
) -> None:
    for _ in range(2):
        assert (await server.data(SIZED, {"n": 5}))["notes"]["edges"] == []
        refused = await server.graphql(SIZED, {"n": 100})
        assert refused["data"] is None
        assert refused["errors"][0]["extensions"]["code"] == "LIMIT_EXCEEDED"
        assert refused["errors"][0]["extensions"]["cost"] == 100 * (1 + 100)


async def test_an_invalid_document_is_refused_every_time_with_its_own_error(server: RunningServer) -> None:
    for _ in range(2):
        body = await server.graphql("{ notes(first: 5) { edges { nope } } }")
        assert body["data"] is None
        assert "nope" in body["errors"][0]["message"]
    assert (await server.data("{ notes(first: 5) { totalCount } }"))["notes"]["totalCount"] == 0


async def test_the_size_rule_judges_each_request_by_its_own_variables_whichever_came_first(
    server: RunningServer,
) -> None:
    # The limits' rule classes are kept per variable key (schema/extensions/cost.py): a variable given, absent (its
    # default counts) or of another type must each be judged as itself, in any order.
    defaulted = "query($n: Int = 500) { notes(first: $n) { totalCount } }"
    for _ in range(2):
        assert (await server.data(defaulted, {"n": 5}))["notes"]["totalCount"] == 0
        refused = await server.graphql(defaulted, {})
        assert refused["data"] is None
        assert refused["errors"][0]["extensions"]["code"] == "INVALID_INPUT", refused
        typed = await server.graphql(defaulted, {"n": "five"})
        assert typed["data"] is None and "five" in typed["errors"][0]["message"], typed
