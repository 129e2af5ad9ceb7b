"""Waiting on a condition with a deadline: the one way tests synchronise (never a fixed sleep).

`until` polls an async condition; `eventually` polls an async read until its value satisfies a predicate and
returns that value. Both fail with `what` once `within` seconds have passed, so a failure says what never happened.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")


async def until(condition: Callable[[], Awaitable[bool]], within: float, what: str, poll: float = 0.1) -> None:
    """Poll an async condition until true; fail saying `what` after `within` seconds."""
    deadline = time.monotonic() + within
    while not await condition():
        assert time.monotonic() < deadline, f"not within {within:.0f}s: {what}"
        await asyncio.sleep(poll)


async def eventually(read: Callable[[], Awaitable[T]], done: Callable[[T], bool], within: float, what: str,
                     poll: float = 0.1) -> T:
    """Poll `read()` until `done(value)`; return that value, or fail saying `what` and the last value."""
    deadline = time.monotonic() + within
    while True:
        value = await read()
        if done(value):
            return value
        assert time.monotonic() < deadline, f"not within {within:.0f}s: {what}; last: {value!r}"
        await asyncio.sleep(poll)
