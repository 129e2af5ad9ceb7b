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


# A text the topic prompt shows whole, numbered by line; a longer one is split by its headings or by length instead
# (a part of it would leave the rest without topics).
TOPIC_INPUT_CHARS = 12000
TOPIC_MAX_ITEMS = 60


class TopicStart(BaseModel):
    line: int = Field(ge=1, description="The number of the line the topic starts on (its heading line, if any).")
    name: str = Field(min_length=1, max_length=200, description="A short name for the topic, in the text's language.")
    depth: int = Field(default=1, ge=1, le=6, description="1 for a top-level topic, 2 for one inside it, and so on.")
    labels: list[str] = Field(default_factory=list, max_length=10,
                              description="Up to five keywords of the topic, lower case.")


_TOPICS = TypeAdapter(list[TopicStart])


def topics_prompt(title: str, lines: Sequence[str]) -> tuple[str, str]:
    """System and user message asking where the text's topics start, as a JSON array over its numbered lines."""
    system = (
        "You split documents into topics for a knowledge base: sections a reader would look up on their own, each "
        "about one thing. Say where each topic starts by the number of its first line, in increasing order; lines "
        "before the first topic belong to the document itself. Use the document's headings where they fit. Answer "
        'with only a JSON array: [{"line": 3, "name": "...", "depth": 1, "labels": ["...", "..."]}].'
    )
    numbered = "\n".join(f"{number}| {line}" for number, line in enumerate(lines, start=1))
    return system, f"TOPICS OF\nTitle: {title}\n\n{numbered}"


def parse_topics(value: object, line_count: int) -> list[TopicStart]:
    """The topic starts in line order; a start outside 1..line_count, or on a line an earlier one took, is left
    out. InvalidAnswer when the shape is wrong or no start is left."""
    try:
        items = _TOPICS.validate_python(_unwrap_list(value))
    except ValidationError as exc:
        raise InvalidAnswer(f"not a list of {{line, name}} objects ({exc.error_count()} problems)") from exc
    starts: dict[int, TopicStart] = {}
    for item in items[:TOPIC_MAX_ITEMS]:
        name = " ".join(item.name.split())
        if 1 <= item.line <= line_count and name and item.line not in starts:
            labels = [" ".join(label.split()) for label in item.labels]
            starts[item.line] = item.model_copy(update={"name": name, "labels": [x for x in labels if x]})
    if not starts:
        raise InvalidAnswer("no topic starts on a line of the text")
    return [starts[line] for line in sorted(starts)]


def embedding_text(title: str, path: str, summary: str | None) -> str:
    """What a document's own vector is made of: title, path and summary (GoClaw's phase 2), the indexer's text."""
    return document_text(title, path, summary)

