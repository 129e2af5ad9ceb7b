"""Fixtures of the scaling tests: a real Redis (Debian's redis-server) for the session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.redis import RedisServer, running_redis


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    with running_redis() as redis:
        yield redis
