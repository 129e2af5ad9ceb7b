"""GraphQL types of uploadDocuments: what became of each file, and the documents it made."""

from __future__ import annotations

import strawberry

from vaultgraph.schema.enums import schema_enum
from vaultgraph.schema.types.items import Document
from vaultgraph.services.uploads import StoredFile, UploadStatus

schema_enum(UploadStatus, "What an upload did with one file.", {
    "CREATED": "A new document (enrichment queued).",
    "UPDATED": "New content for the document of that name (`overwrite: true`); enrichment queued again.",
    "UNCHANGED": "The same content was there already; nothing written.",
})


@strawberry.type(description="One uploaded file: the name it came with, the path it is stored at, and its document.")
class UploadedFile:
    filename: str = strawberry.field(description="The name the client sent (never used as a path).")
    path: str = strawberry.field(description="Where it is stored, inside the owner's space: the document's path.")
    status: UploadStatus = strawberry.field(description="What became of it.")
    document: Document = strawberry.field(description="Its document.")

    @classmethod
    def from_stored(cls, stored: StoredFile) -> UploadedFile:
        return cls(filename=stored.filename, path=stored.path, status=stored.status,
                   document=Document.from_domain(stored.document))


@strawberry.type(description="What uploadDocuments stored: each file in the order sent, and the documents.")
class UploadDocumentsPayload:
    files: list[UploadedFile] = strawberry.field(description="Each file, in the order sent.")

    @strawberry.field(description="The documents the upload created or updated (enrichment runs on them now), and "
                                  "those it found unchanged.")
    def documents(self) -> list[Document]:
        seen: dict[str, Document] = {}
        for file in self.files:
            seen.setdefault(str(file.document.id), file.document)
        return list(seen.values())
