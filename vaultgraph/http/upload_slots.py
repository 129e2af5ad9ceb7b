"""At most N upload requests of one tenant in flight at once.

An upload is the one request that holds the server for long: its body streams to temporary files (up to
`VAULTGRAPH_UPLOAD_MAX_BODY_BYTES`), then every file is read again to check and store it. The rate limiter counts
requests, not how long they last, so a key within its rate could still keep dozens of uploads open and fill the
disk with their spooled bodies. Slots are taken once the caller is known (after authentication) and before any
byte of the body is read; one more answers 429 `LIMIT_EXCEEDED` with `Retry-After`, like the rate limiter. Another
tenant's uploads never wait for these slots. Counted in this process's memory (each replica has its own).
"""

from __future__ import annotations

from vaultgraph.http.refusals import Refusal

RETRY_AFTER_SECONDS = 1


class UploadSlots:
    """`per_tenant` uploads at once for each tenant; 0 turns the limit off."""

    def __init__(self, per_tenant: int) -> None:
        self.per_tenant = per_tenant
        self._in_flight: dict[str, int] = {}

    def take(self, tenant: str) -> None:
        """One slot of `tenant`'s, or a 429 Refusal (nothing taken) when all are in use."""
        held = self._in_flight.get(tenant, 0)
        if self.per_tenant > 0 and held >= self.per_tenant:
            raise Refusal(429, "LIMIT_EXCEEDED",
                          f"at most {self.per_tenant} uploads at once per tenant; retry when one has finished",
                          {"Retry-After": str(RETRY_AFTER_SECONDS), "Connection": "close"}, limit=self.per_tenant)
        self._in_flight[tenant] = held + 1

    def give_back(self, tenant: str) -> None:
        held = self._in_flight.get(tenant, 0) - 1
        if held > 0:
            self._in_flight[tenant] = held
        else:
            self._in_flight.pop(tenant, None)

    def in_flight(self, tenant: str) -> int:
        return self._in_flight.get(tenant, 0)
