"""The L0 tier of EverOS's three: the taxonomy's categories with their document counts."""

from __future__ import annotations

import strawberry

from vaultgraph.services.documents import CategoryCount


@strawberry.type(description="A category of the tenant's taxonomy (`.taxonomy.md`, else the 20 defaults).")
class Category:
    name: str = strawberry.field(description="The category's id as the taxonomy spells it, e.g. Technology.")
    description: str | None = strawberry.field(
        description="What belongs in it; null for a category documents still carry that the taxonomy no longer "
                    "lists.")
    document_count: int = strawberry.field(
        description="Documents in it that the caller can see (tenant and visible scopes); unclassified ones are in "
                    "none.")
    in_taxonomy: bool = strawberry.field(
        description="False for a category no longer in the taxonomy (edited since its documents were classified).")

    @classmethod
    def from_domain(cls, category: CategoryCount) -> Category:
        return cls(name=category.name, description=category.description, document_count=category.document_count,
                   in_taxonomy=category.in_taxonomy)
