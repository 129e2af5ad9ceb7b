"""Reading under the lock. Neo4j reads committed data without locking, so a check and the write that depends on
it can straddle another transaction's commit; a check read under the node's write lock sees that commit. Every
claim (graph/enrichment_claims.py, graph/note_index.py), every write that needs its claim still held, and the
sweep that takes overdue announcements check this way.
"""

from __future__ import annotations


def locked_where(node: str, condition: str) -> str:
    """Keeps the rows where `condition` holds, read under `node`'s write lock (taken by setting a property, which
    is removed again in the same statement, so no row keeps it, whether it passes or not).

    A `WHERE` read before the lock can see a claim or lease just before a concurrent transaction (the requeue of an
    overwrite, a revoke, another worker's claim) changes it; the write that follows, waiting for that transaction's
    lock, then lands after it: a lost update. Read under the lock, the condition sees the change.
    """
    return (f"SET {node}.claimLock = true\nWITH *, {condition} AS underLock\n"
            f"REMOVE {node}.claimLock\nWITH * WHERE underLock\n")


def still_held(node: str = "d", claim: str = "claimedBy") -> str:
    """Keeps the rows whose `claim` on `node` `$worker` still holds (see locked_where)."""
    return locked_where(node, f"{node}.{claim} = $worker")
