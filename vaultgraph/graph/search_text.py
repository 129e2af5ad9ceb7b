"""What the keyword channel reads of a node: one property, `searchText`, written beside the text it is made of.

BM25 scores a term once per document, its weight saturating with its count and normalised by the document's length.
With each of title, path, summary, body and text as a field of its own (the index before migration 241), a word of
the title that the body repeats (most of them) was scored twice, at a short field's saturation, and the fields'
scores were summed: on SciFact's full corpus that lost 0.024 nDCG@10 against one bag of words per node
(bench/keyword_layouts.py; bench/README.md has the table). Chunks and topics go in the same field, so the one BM25
statistic of the field compares a chunk's hit with a note's when the service keeps an item's best row.

Every statement that writes one of SOURCES on a node of a full-text label ends with `SET <set_search_text(var)>`
(a SET clause of its own, so it reads the values just written).
"""

from __future__ import annotations

from vaultgraph.text.lucene import SEARCH_TENANT_FIELD, TENANT_SPELLING

SEARCH_TEXT_FIELD = "searchText"

# The properties the field is made of, in this order (a node has the ones of its kind: a note's title and body, a
# document's title, path and summary, a chunk's or topic's title and text).
SOURCES = ("title", "path", "summary", "body", "text")


def set_search_text(var: str) -> str:
    """`var.searchText = <SOURCES joined by newlines, a missing one as ''>` and `var.searchTenant` (the tenant id as
    one index word, text/lucene.py `tenant_token`), for a SET clause."""
    parts = " + '\\n' + ".join(f"coalesce({var}.{name}, '')" for name in SOURCES)
    tenant = tenant_token_cypher(f"{var}.tenantId")
    return f"{var}.{SEARCH_TEXT_FIELD} = {parts}, {var}.{SEARCH_TENANT_FIELD} = {tenant}"


def tenant_token_cypher(tenant: str) -> str:
    """Cypher spelling the tenant id `tenant` (an expression) as text/lucene.py `tenant_token` does."""
    cases = " ".join(f"WHEN c = '{c}' THEN '{code}'" for c, code in TENANT_SPELLING.items())
    return (f"'tenant' + reduce(s = '', c IN split({tenant}, '') | s + CASE {cases} "
            "WHEN c <> toLower(c) THEN '_3' + toLower(c) ELSE c END) + '_9'")
