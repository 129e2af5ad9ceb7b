"""uploadDocuments: files by the GraphQL multipart request spec into one owner's folder of the workspace."""

from __future__ import annotations

from typing import Annotated, Any, cast

import strawberry
from strawberry.file_uploads import Upload

from vaultgraph.schema.arguments import OWNER_AGENT, OWNER_SCOPE, OWNER_TEAM
from vaultgraph.schema.context import Info
from vaultgraph.schema.types.items import Scope
from vaultgraph.schema.types.uploads import UploadDocumentsPayload, UploadedFile
from vaultgraph.services.documents import owner_of
from vaultgraph.services.uploads import UploadSource


async def upload_documents(
    info: Info,
    files: Annotated[list[Upload], strawberry.argument(description=(
        "1-50 files, by the GraphQL multipart request spec; each at most 50 MB (LIMIT_EXCEEDED beyond), a text "
        "format or, with the formats extra, PDF, DOCX, PPTX or XLSX (UNSUPPORTED_FORMAT otherwise)."))],
    scope: Annotated[Scope, strawberry.argument(description=OWNER_SCOPE)] = Scope.SHARED,
    agent_id: Annotated[str | None, strawberry.argument(description=OWNER_AGENT)] = None,
    team_id: Annotated[str | None, strawberry.argument(description=OWNER_TEAM)] = None,
    folder: Annotated[str | None, strawberry.argument(
        description="A folder inside the owner's space (e.g. `reports/2026`); none: its top.")] = None,
    overwrite: Annotated[bool, strawberry.argument(
        description="Replace a file of the same name (its document is updated and re-enriched); otherwise a taken "
                    "name gets a number (`report-2.md`).")] = False,
) -> UploadDocumentsPayload:
    """Store up to 50 text files (.md .markdown .txt .json .yaml .yml .csv .tsv .html .htm, 50 MB each) as
    documents of the workspace; their content decides, not their names. With the formats extra (`pip install
    'vaultgraph[formats]'`), .pdf .docx .pptx .xlsx files too: kept as sent, enriched from their Markdown (HTML
    likewise); a corrupt or encrypted one fails its own enrichment. A shared `folder` under `agents/` or
    `teams/` (other owners' spaces) is INVALID_INPUT. One refused file refuses them all and nothing is stored.
    Needs the `Apollo-Require-Preflight` (or `X-Apollo-Operation-Name`) header: a browser cannot send it cross-site."""
    ctx = info.context
    owner = owner_of(scope, agent_id, team_id)
    sources = cast(list[UploadSource], cast(list[Any], files))
    stored = await ctx.services.uploads.upload(ctx.principal, owner, folder, sources, overwrite)
    return UploadDocumentsPayload(files=[UploadedFile.from_stored(s) for s in stored])
