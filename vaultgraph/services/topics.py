"""Reading a document's topics (EverOS's L2): by document, and one by id. Enrichment writes them
(workers/topics.py); a topic is visible to whoever may read its document."""

from __future__ import annotations

from vaultgraph.domain import Principal, Topic
from vaultgraph.graph import topics as cypher
from vaultgraph.graph.session import Graph
from vaultgraph.graph.topics import TOPIC_ID_PREFIX

__all__ = ["DEFAULT_TOPICS", "MAX_TOPICS", "TOPIC_ID_PREFIX", "TopicService"]

# `Document.topics(first:)`: the topics one read returns, from the first in position order. A section is at least
# a hundred characters (text/topics.py folds shorter ones), so 500 covers a long report whole; more are reached
# through search hits and node(id).
DEFAULT_TOPICS = 100
MAX_TOPICS = 500


class TopicService:
    def __init__(self, graph: Graph) -> None:
        self.graph = graph

    async def of_documents(self, principal: Principal, document_ids: list[str]) -> dict[str, list[Topic]]:
        """Each document's topics in position order; a document the caller cannot see (or that is gone) has none."""
        found = await self.graph.read(cypher.topics_of, principal.tenant_id, document_ids)
        return {id: [t for t in topics if principal.sees_owner_key(t.owner_key)] for id, topics in found.items()}

    async def find(self, principal: Principal, topic_id: str) -> Topic | None:
        """The topic, or None when it does not exist or the caller cannot see its document."""
        topic = await self.graph.read(cypher.topic_by_id, principal.tenant_id, topic_id)
        return topic if topic is not None and principal.sees_owner_key(topic.owner_key) else None
