"""User text → a safe Lucene query for Neo4j's full-text index, and keywords (and their query) for the substring
fallback.

User text never reaches the query parser as syntax: it is cut into words (Unicode letters, digits, `_`), each
word is escaped and lowercased (so `AND`/`OR`/`NOT` are words, not operators), and the words are OR-ed in each
field. The tenant clause is one quoted word with boost 0: it restricts the hits without adding to their score.

The tenant is matched through `searchTenant`, its id spelled as one word the index's English analyzer keeps whole
(`tenant_token`), not through the id itself: the analyzer cut `team-a` into `team` (`a` is a stop word) and the
clause, a phrase, also matched every node of `team-b`, `team-a-2` and `team`. The Cypher filter behind the index
dropped those rows (nothing leaked), but they took the channel's places (a tenant's own hits went missing behind
another's) and its time.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

MAX_TERMS = 64
# Substring fallback (GoClaw's ILIKE pass): at most this many keywords, each at least this long and at most as long
# as a word the index holds (Lucene's tokenizer cuts longer runs into pieces of 255).
MAX_FALLBACK_KEYWORDS = 5
MIN_FALLBACK_KEYWORD = 3
MAX_INDEXED_WORD = 255
# Han, kana and hangul: scripts written without spaces, where one "word" may be a whole phrase.
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_WORD = re.compile(r"\w+")
_SPECIAL = re.compile(r'([+\-&|!(){}\[\]^"~*?:\\/])')
# Words too common to say anything in a substring match or a snippet (Lucene's English stop words and a few more).
STOP_WORDS = frozenset({
    "a", "an", "as", "at", "be", "by", "if", "in", "is", "it", "no", "of", "on", "or", "to", "such",
    "the", "and", "for", "are", "but", "not", "you", "all", "any", "can", "had", "her", "was", "one", "our", "out",
    "has", "him", "his", "how", "its", "may", "new", "now", "see", "two", "who", "did", "get", "let", "put", "say",
    "she", "too", "use", "with", "this", "that", "from", "they", "will", "would", "there", "their", "what", "which",
    "when", "where", "into", "than", "then", "them", "these", "those", "been", "have", "were", "does",
})


def escape(term: str) -> str:
    """A term with every Lucene syntax character backslash-escaped."""
    return _SPECIAL.sub(r"\\\1", term)


def query_terms(text: str) -> list[str]:
    """Distinct lowercased words of the text, in order, at most MAX_TERMS."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(text.casefold()):
        seen.setdefault(word, None)
        if len(seen) == MAX_TERMS:
            break
    return list(seen)


SEARCH_TENANT_FIELD = "searchTenant"
# Tenant ids are ASCII letters, digits, `_`, `-` and `.` (workspace/layout.py). Each character the tokenizer would
# split at or the analyzer would fold becomes `_` and a digit, so the spelling is one word and one tenant's alone;
# the closing `_9` keeps the English stemmer off its end. graph/search_text.py writes the same spelling in Cypher.
TENANT_SPELLING = {"-": "_0", "_": "_1", ".": "_2"}


def tenant_token(tenant: str) -> str:
    """The tenant id as the single index word `searchTenant` holds: `Team-a` → `tenant_3team_0a_9`."""
    spelled = "".join(TENANT_SPELLING.get(c, "_3" + c.lower() if c != c.lower() else c) for c in tenant)
    return f"tenant{spelled}_9"


def _tenant_clause(tenant: str) -> str:
    # Quoted: a spelling past the tokenizer's 255 characters is cut into words, and only the phrase of all of
    # them (in order) is this tenant's; unquoted they would be OR-ed, and the last word shared with others.
    return f'+{SEARCH_TENANT_FIELD}:"{tenant_token(tenant)}"^0'


def fulltext_query(terms: Sequence[str], fields: Sequence[str], tenant: str | None = None,
                   boosts: dict[str, float] | None = None) -> str | None:
    """`+searchTenant:"tenant_t_9"^0 +(title:(a b) body:(a b) …)`, or None when there is no word to search for."""
    if not terms:
        return None
    group = " ".join(escape(term) for term in terms)
    boosts = boosts or {}
    clauses = " ".join(f"{field}:({group})" + (f"^{boosts[field]:g}" if field in boosts else "") for field in fields)
    query = f"+({clauses})"
    if tenant is not None:
        query = f"{_tenant_clause(tenant)} {query}"
    return query


def fallback_keywords(terms: Sequence[str]) -> list[str]:
    """Keywords for the substring fallback: long enough, not longer than an indexed word, not stop words; runs of
    CJK text become bigrams."""
    keywords: dict[str, None] = {}
    for term in terms:
        if _CJK.search(term):
            grams = [term] if len(term) <= 2 else [term[i : i + 2] for i in range(len(term) - 1)]
            for gram in grams:
                keywords.setdefault(gram, None)
        elif MIN_FALLBACK_KEYWORD <= len(term) <= MAX_INDEXED_WORD and term not in STOP_WORDS:
            keywords.setdefault(term, None)
    return list(keywords)[:MAX_FALLBACK_KEYWORDS]


def fallback_query(keywords: Sequence[str], fields: Sequence[str], tenant: str) -> str | None:
    """`+searchTenant:"tenant_t_9"^0 +(field:*kw* …)`: the tenant's nodes holding a word that contains a keyword,
    the candidates of the substring fallback, asked of the index of words as written (lowercased, not stemmed):
    `fluorometh` is found in `difluoromethane`, a hangul or katakana keyword inside a run of its script (one word).
    Han and kana are indexed a character to a word, so the query's own words already find them. None when there is
    no keyword."""
    if not keywords:
        return None
    clauses = " ".join(f"{field}:*{escape(keyword)}*" for field in fields for keyword in keywords)
    return f"{_tenant_clause(tenant)} +({clauses})"


def phrase_query(phrases: Sequence[str], field: str, tenant: str) -> str | None:
    """`+searchTenant:"tenant_t_9"^0 +(field:"a b" field:"c")`: any of the phrases, each analyzed as the field was
    (so a name is found however the analyzer cut it into words); None when no phrase holds a letter or digit."""
    kept = [phrase for phrase in phrases if _WORD.search(phrase)]
    if not kept:
        return None
    clauses = " ".join(f'{field}:"{escape(" ".join(phrase.split()))}"' for phrase in kept)
    return f"{_tenant_clause(tenant)} +({clauses})"
