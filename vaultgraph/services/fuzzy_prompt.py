"""The prompt of the fuzzy link pass: does one of these notes *be* what the author linked to? Pure."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, Field, ValidationError

# A candidate contributes at most this much of its text to the prompt.
CANDIDATE_EXCERPT_CHARS = 400


class InvalidMatch(ValueError):
    """The model answered JSON, but not `{"match": <n>|null}` with n one of the candidates."""


@dataclass(frozen=True, slots=True)
class MatchCandidate:
    title: str
    excerpt: str


class MatchAnswer(BaseModel):
    match: int | None = Field(
        description="The number of the candidate that IS the linked subject, starting at 1; null when none is."
    )


def match_prompt(link_text: str, context: str | None, candidates: Sequence[MatchCandidate]) -> tuple[str, str]:
    """System and user message asking which candidate note the wikilink means, if any."""
    system = (
        "An author wrote a wikilink to a note that does not exist under that exact name. Decide whether one of "
        "the numbered candidate notes is the very note the author meant (the same subject under another title). "
        "A related note, a note on the same topic, or a note on a broader or parent subject is NOT a match: a "
        "wrong link is worse than no link. Answer with JSON only: {\"match\": <number>} or {\"match\": null}."
    )
    lines = [f"Wikilink: [[{link_text}]]"]
    if context:
        lines.append(f"Written in: …{context}…")
    lines.append("Candidates:")
    for number, candidate in enumerate(candidates, start=1):
        excerpt = " ".join(candidate.excerpt.split())[:CANDIDATE_EXCERPT_CHARS]
        lines.append(f"{number}. {candidate.title}: {excerpt}")
    return system, "\n".join(lines)


def parse_match(value: object, count: int) -> int | None:
    """The 0-based index of the chosen candidate, or None; InvalidMatch for an answer outside the question."""
    try:
        answer = MatchAnswer.model_validate(value)
    except ValidationError as exc:
        raise InvalidMatch(f"not a {{match: number|null}} object ({exc.error_count()} problems)") from exc
    if answer.match is None:
        return None
    if not 1 <= answer.match <= count:
        raise InvalidMatch(f"match {answer.match} is not one of the {count} candidates")
    return answer.match - 1
