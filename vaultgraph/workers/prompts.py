"""Prompts of the enrichment pipeline: pure functions of typed input, each paired with the response model that
validates the model's JSON answer. Nothing here does I/O."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from vaultgraph.services.indexing import document_text
from vaultgraph.services.taxonomy import Category

# GoClaw's budget: a document contributes at most this many characters to a summary prompt.
SUMMARY_INPUT_CHARS = 3000
SUMMARY_MAX_CHARS = 1200
SEMANTIC_LINK_TYPES = ("REFERENCES", "DEPENDS_ON", "EXTENDS", "RELATED", "SUPERSEDES", "CONTRADICTS")
SKIP = "SKIP"


class InvalidAnswer(ValueError):
    """The model answered JSON, but not the JSON the prompt asked for."""


@dataclass(frozen=True, slots=True)
class SummaryInput:
    title: str
    path: str
    text: str


class SummaryItem(BaseModel):
    idx: int = Field(description="The number of the document in the prompt, starting at 1.")
    summary: str = Field(min_length=1, description="Two to four sentences on what the document is about.")
    category: str | None = Field(default=None, description="One category id from the list, or Others.")


class LinkChoice(BaseModel):
    idx: int = Field(description="The number of the candidate in the prompt, starting at 1.")
    type: str = Field(description="One of the link types, or SKIP when no meaningful relation holds.")


_SUMMARIES = TypeAdapter(list[SummaryItem])
_CHOICES = TypeAdapter(list[LinkChoice])


def _unwrap_list(value: object) -> object:
    """Models in JSON mode often wrap the array in an object (`{"summaries": [...]}`); take the one list."""
    if isinstance(value, dict):
        lists = [item for item in value.values() if isinstance(item, list)]
        if len(lists) == 1:
            return lists[0]
    return value


def summarize_prompt(documents: Sequence[SummaryInput], categories: Sequence[Category]) -> tuple[str, str]:
    """System and user message asking for one summary and one category per document, as a JSON array."""
    ids = ", ".join(category.id for category in categories)
    system = (
        "You summarize documents for a knowledge base. For each numbered document write a factual summary of two "
        "to four sentences in the document's own language, and pick the one category that fits best. Answer with "
        'only a JSON array, one object per document: [{"idx": 1, "summary": "...", "category": "..."}]. '
        f"Categories: {ids}, or Others when none fits."
    )
    parts = []
    for index, document in enumerate(documents, start=1):
        body = document.text[:SUMMARY_INPUT_CHARS]
        parts.append(f"### Document {index}\nTitle: {document.title}\nPath: {document.path}\n\n{body}")
    return system, "\n\n".join(parts)


def parse_summaries(value: object, count: int) -> dict[int, SummaryItem]:
    """Summaries by 1-based index; answers for indexes outside 1..count are ignored, the first one per index
    kept. InvalidAnswer when the shape is wrong."""
    try:
        items = _SUMMARIES.validate_python(_unwrap_list(value))
    except ValidationError as exc:
        raise InvalidAnswer(f"not a list of {{idx, summary}} objects ({exc.error_count()} problems)") from exc
    found: dict[int, SummaryItem] = {}
    for item in items:
        summary = " ".join(item.summary.split())
        if 1 <= item.idx <= count and summary and item.idx not in found:
            found[item.idx] = item.model_copy(update={"summary": summary[:SUMMARY_MAX_CHARS]})
    return found


@dataclass(frozen=True, slots=True)
class LinkCandidate:
    title: str
    path: str
    summary: str | None
    cosine: float


def classify_prompt(source: SummaryInput, summary: str, candidates: Sequence[LinkCandidate]) -> tuple[str, str]:
    """System and user message asking how the source relates to each candidate, as a JSON array."""
    types = ", ".join(SEMANTIC_LINK_TYPES)
    system = (
        "You connect documents in a knowledge graph. For each numbered candidate decide how the SOURCE document "
        f"relates to it: one of {types}; or {SKIP} when there is no meaningful relation (similar wording alone "
        'is not a relation). Answer with only a JSON array: [{"idx": 1, "type": "RELATED"}].'
    )
    rows = [f"SOURCE\nTitle: {source.title}\nPath: {source.path}\nSummary: {summary}"]
    for index, candidate in enumerate(candidates, start=1):
        rows.append(
            f"### Candidate {index} (similarity {candidate.cosine:.2f})\nTitle: {candidate.title}\n"
            f"Path: {candidate.path}\nSummary: {candidate.summary or '(none)'}"
        )
    return system, "\n\n".join(rows)


def parse_link_choices(value: object, count: int) -> dict[int, str]:
    """Link type by 1-based candidate index; unknown types count as SKIP. InvalidAnswer on a wrong shape."""
    try:
        items = _CHOICES.validate_python(_unwrap_list(value))
    except ValidationError as exc:
        raise InvalidAnswer(f"not a list of {{idx, type}} objects ({exc.error_count()} problems)") from exc
    choices: dict[int, str] = {}
    for item in items:
        kind = item.type.strip().upper().replace(" ", "_")
        if 1 <= item.idx <= count and item.idx not in choices:
            choices[item.idx] = kind if kind in SEMANTIC_LINK_TYPES else SKIP
    return choices


def embedding_text(title: str, path: str, summary: str | None) -> str:
    """What a document's own vector is made of: title, path and summary (GoClaw's phase 2), the indexer's text."""
    return document_text(title, path, summary)

