"""Reading a claim safely. Neo4j reads committed data without locking, so a check and the write that depends on it
can straddle another transaction's commit; reading under the node's write lock closes that gap. The claims
themselves (graph/enrichment_claims.py, graph/note_index.py) take the lock the same way before they read a lease.
"""

from __future__ import annotations


def still_held(node: str = "d", claim: str = "claimedBy") -> str:
    """Keeps the rows whose `claim` on `node` `$worker` still holds, read under the node's write lock.

    Neo4j reads committed data without locking: a `WHERE d.claimedBy = $worker` can read the claim just before a
    concurrent transaction (the requeue of an overwrite, a revoke) removes it, and the write that follows, waiting
    for that transaction's lock, then lands after the revoke: a lost update that leaves the old text's stage and
    lease on a requeued document. Taking the lock first (setting a property) makes the read see the revoke.
    """
    return (f"SET {node}.claimLock = true\nWITH *, {node}.{claim} = $worker AS stillHeld\n"
            f"REMOVE {node}.claimLock\nWITH * WHERE stillHeld\n")
