"""Contract tests for the private parts of libraries vaultgraph leans on where no public way exists: each fails
loudly when a release drops or changes the internal, instead of vaultgraph silently losing what it bought."""

from __future__ import annotations

from contextlib import AbstractContextManager

import pytest

from vaultgraph.graph.session import Graph, _pipelined_begin

pytestmark = pytest.mark.graph


async def test_the_driver_still_has_its_pipelined_begin_switch(graph: Graph) -> None:
    # graph/session.py sends BEGIN with the first statement through this switch (one round trip fewer a
    # transaction); the driver (neo4j>=6,<7 in pyproject.toml) keeps it private.
    async with graph.driver.session(database=graph.database) as session:
        switch = getattr(session, "_pipelined_begin", None)
        assert isinstance(switch, AbstractContextManager), "neo4j driver dropped AsyncSession._pipelined_begin"
        assert _pipelined_begin(session) is switch
        with _pipelined_begin(session):
            record = await (await session.run("RETURN 1 AS one")).single()
        assert record is not None and record["one"] == 1
