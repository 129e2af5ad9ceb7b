"""Hybrid search's keyword candidates that the vector channel did not return, given their true cosine before fusion.

The vector channel returns only its top k (twice the page) above the query's similarity floor, so a keyword
candidate missing from it was cut for want of depth or stands under the floor; fused with a vector score of 0, it
ranked as if it were as unlike the query as unrelated text. Its cosine is known to the graph: one read
(graph/item_cosines.py) computes it from the stored vectors of the item and its chunks, and fusion.complete adds it
to the channel's hits, so the candidate is scored as the channel would have scored it. bench/README.md ("Round
three") measures it on SciFact. A vector-only candidate keeps a keyword score of 0: Neo4j's full-text index gives
no BM25 for one node outside its top k.
"""

from __future__ import annotations

from collections.abc import Sequence

from vaultgraph.graph.item_cosines import item_cosines
from vaultgraph.graph.session import Graph
from vaultgraph.graph.vectors import VectorModel
from vaultgraph.services.fusion import ChannelHit, complete


async def completed(graph: Graph, tenant: str, query: list[float], model: VectorModel,
                    keyword: Sequence[ChannelHit], vector: Sequence[ChannelHit]) -> list[ChannelHit]:
    """The vector channel's hits and, at their exact cosine, the keyword candidates it did not return."""
    returned = {hit.item_id for hit in vector}
    missing = [hit.item_id for hit in keyword if hit.item_id not in returned]
    if not missing:
        return list(vector)
    return complete(vector, keyword, await item_cosines(graph, tenant, missing, query, model))
