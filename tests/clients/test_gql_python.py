"""gql, the Python GraphQL client, against the live server: a query over HTTP (httpx), an APQ registration (the
query with its sha256 in `extensions.persistedQuery`) that a hash-only request then runs, and a subscription over
graphql-transport-ws with the tenant in `connection_init` only (issue 22, the client suite)."""

from __future__ import annotations

import hashlib
import uuid

import pytest
from gql import Client, GraphQLRequest, gql
from gql.transport.exceptions import TransportQueryError
from gql.transport.httpx import HTTPXAsyncTransport
from gql.transport.websockets import WebsocketsTransport
from graphql import print_ast

from tests.support.server import RunningServer

pytestmark = [pytest.mark.api]


def _apq(query: str) -> dict[str, object]:
    return {"persistedQuery": {"version": 1, "sha256Hash": hashlib.sha256(query.encode()).hexdigest()}}


async def test_gql_queries_and_registers_a_persisted_query(server: RunningServer, tenant: str) -> None:
    async with Client(transport=HTTPXAsyncTransport(url=f"{server.url}/graphql")) as session:
        result = await session.execute(GraphQLRequest(gql("{ documents { totalCount } }")))
        assert result == {"documents": {"totalCount": 0}}
        # gql sends the document as graphql-core prints it: that text is what the hash must be of.
        query = print_ast(gql(f"query GqlCount_{tenant} {{ notes {{ totalCount }} }}").document)
        registered = await session.execute(GraphQLRequest(query, extensions=_apq(query)))
        assert registered == {"notes": {"totalCount": 0}}
        with pytest.raises(TransportQueryError) as wrong:
            await session.execute(GraphQLRequest(query, extensions=_apq(query + " ")))
        assert wrong.value.errors is not None and wrong.value.errors[0]["extensions"]["code"] == "INVALID_INPUT"
    # The hash gql registered now stands for the query on its own.
    by_hash = await server.client.post("/graphql", json={"extensions": _apq(query)})
    assert by_hash.json() == {"data": {"notes": {"totalCount": 0}}}


async def test_gql_subscribes_with_the_tenant_in_connection_init(server: RunningServer) -> None:
    other = f"t{uuid.uuid4().hex[:16]}"  # not the server's default tenant
    await server.data('mutation { saveNote(input: {title: "Over gql", body: "x"}) { note { id } } }',
                      headers={"X-Vaultgraph-Tenant": other})
    transport = WebsocketsTransport(url=server.url.replace("http://", "ws://") + "/graphql",
                                    init_payload={"X-Vaultgraph-Tenant": other},
                                    subprotocols=[WebsocketsTransport.GRAPHQLWS_SUBPROTOCOL])
    async with Client(transport=transport) as session:
        progress = session.subscribe(GraphQLRequest(gql("subscription { enrichmentProgress { queued running } }")))
        first = await anext(progress)  # the current counts arrive at once
        assert first == {"enrichmentProgress": {"queued": 0, "running": 0}}
        await progress.aclose()
        # Over the same socket a query lands in the payload's tenant too (the default tenant has no note).
        notes = await session.execute(GraphQLRequest(gql("{ notes { totalCount } }")))
        assert notes == {"notes": {"totalCount": 1}}
