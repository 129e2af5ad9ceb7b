"""`Services`: every use case the API can reach, as one bundle the composition root builds (runtime.py) and the
request Context, the DataLoaders and the MCP tools take. Its own module, so the Context and the loaders, which
both need it, do not import each other."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vaultgraph.interop.vault import VaultService
    from vaultgraph.services.context_pack import ContextPackService
    from vaultgraph.services.days import DayService
    from vaultgraph.services.documents import DocumentService
    from vaultgraph.services.enrichment import EnrichmentService
    from vaultgraph.services.fuzzy_links import FuzzyResolver
    from vaultgraph.services.links import LinkService
    from vaultgraph.services.meetings import MeetingService
    from vaultgraph.services.mentions import MentionService
    from vaultgraph.services.notes import NoteService
    from vaultgraph.services.search import SearchService
    from vaultgraph.services.suggestions import SuggestionService
    from vaultgraph.services.topics import TopicService
    from vaultgraph.services.uploads import UploadService
    from vaultgraph.services.weekly_review import WeeklyReviewService
    from vaultgraph.services.workspace_sync import WorkspaceSync


@dataclass
class Services:
    """Every use case the API can reach, built once by the composition root."""

    documents: DocumentService
    notes: NoteService
    links: LinkService
    vault: VaultService
    enrichment: EnrichmentService
    search: SearchService
    suggestions: SuggestionService
    fuzzy: FuzzyResolver
    context_pack: ContextPackService
    workspace_sync: WorkspaceSync
    uploads: UploadService
    weekly_review: WeeklyReviewService
    meetings: MeetingService
    days: DayService
    mentions: MentionService
    topics: TopicService


