"""The `vaultgraph:` frontmatter key: whatever an export adds, import takes out again byte for byte, for any body."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultgraph.interop.vault_meta import add_block, split_block, stated

pytestmark = pytest.mark.text

_LINES = st.sampled_from(["---", "--- ", "title: x", "tags: [a, b]", "# Heading", "", "  indented", "vaultgraph",
                          "text [[Link]]", "\r", "key: |", "  - item", "vaultgraph: mine",
                          "vaultgraph:", "  kind: x"])
BODIES = st.lists(_LINES, max_size=8).map("\n".join) | st.text(max_size=40)
_SCALARS = st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=12)
METAS = st.dictionaries(st.sampled_from(["title", "slug", "kind", "date", "pinned", "archived"]), _SCALARS,
                        max_size=4) | st.fixed_dictionaries(
    {"links": st.lists(st.fixed_dictionaries({"type": st.just("DEPENDS_ON"), "to": st.text(max_size=10)}),
                       max_size=2)})


@settings(database=None, deadline=None, max_examples=200)
@given(BODIES, METAS)
def test_what_an_export_adds_import_takes_out(body: str, meta: dict[str, Any]) -> None:
    assert split_block(add_block(body, meta)) == (body, meta)


def test_the_key_wins_over_plain_properties_which_win_over_nothing() -> None:
    body = "---\nkind: meeting\ndate: 2026-06-09\npinned: true\n---\ntext\n"
    plain = stated(body, {})
    assert (plain.kind, str(plain.note_date), plain.pinned, plain.dated) == ("meeting", "2026-06-09", True, True)
    over = stated(body, {"kind": "note", "date": None, "pinned": False})
    assert (over.kind, over.note_date, over.pinned, over.dated) == ("note", None, False, True)
    assert stated("no frontmatter\n", {}).dated is False
