"""Cypher for the exact cosine of named items to a query vector, read from the vectors the graph stores.

Hybrid search asks it for the keyword channel's candidates that the vector channel did not return (it returns only
its top k above the similarity floor), so that such an item is fused with its true vector score instead of 0
(services/fusion.complete). An item's cosine is the best of its own vector and its chunks' and topics' (the vector
channel rolls those rows up to the item the same way); only vectors the query's model made count, as in the
channel (graph/vectors.from_model). The ids are the channel's few candidates: each is an index seek on
(tenantId, id) or (tenantId, itemId), and one cosine per stored vector.
"""

from __future__ import annotations

from vaultgraph.graph.session import Graph
from vaultgraph.graph.vectors import VectorModel, from_model

# Neo4j's vector.similarity.cosine is (1 + cos) / 2; the statement turns it back into the cosine.
ITEM_COSINES = """
UNWIND $ids AS id
CALL (id) {
  MATCH (node:Item {tenantId: $tenant, id: id}) RETURN node
  UNION ALL
  MATCH (node:Chunk {tenantId: $tenant, itemId: id}) RETURN node
  UNION ALL
  MATCH (node:Topic {tenantId: $tenant, itemId: id}) RETURN node
}
WITH id, node
WHERE node.embedding IS NOT NULL AND """ + from_model("node") + """ AND node.embeddingDimensions = $dimensions
WITH id, max(vector.similarity.cosine(node.embedding, $vector)) AS similarity
RETURN collect([id, 2 * similarity - 1]) AS rows
"""


async def item_cosines(graph: Graph, tenant: str, ids: list[str], vector: list[float],
                       model: VectorModel) -> dict[str, float]:
    """Item id → the best cosine of its vectors to `vector`; items without a vector of `model` are left out.
    One auto-commit read (one round trip: it runs after both channels, on the search's critical path)."""
    [record] = await graph.read_records(ITEM_COSINES, tenant=tenant, ids=ids, vector=vector, model=model.name,
                                        dimensions=model.dimensions)
    return {item_id: float(cosine) for item_id, cosine in record["rows"]}
