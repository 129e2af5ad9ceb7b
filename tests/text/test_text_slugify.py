"""slugify: lowercase, "-" between words, "/" between folders, idempotent."""

from __future__ import annotations

import pytest

from vaultgraph.text.slugify import slugify

pytestmark = pytest.mark.text


@pytest.mark.parametrize(
    ("title", "slug"),
    [
        ("Octipus Architecture", "octipus-architecture"),
        ("daily/2026-06-09", "daily/2026-06-09"),
        ("  Hello,   World!  ", "hello-world"),
        ("C++ & Rust: a comparison", "c-rust-a-comparison"),
        ("snake_case and kebab-case", "snake-case-and-kebab-case"),
        ("//Projects///Q3 Plan//", "projects/q3-plan"),
        ("a/!!!/b", "a/b"),  # a segment with nothing in it disappears
        ("Über Straße", "über-straße"),
        ("東京 メモ", "東京-メモ"),
        ("हिन्दी नोट", "हिन्दी-नोट"),  # combining vowel signs stay inside the word
        ("Ｆｕｌｌｗｉｄｔｈ／ＡＢＣ", "fullwidth/abc"),  # NFKC
        ("ﬁle ①", "file-1"),
        ("Café", "café"),
        ("Cafe\u0301", "café"),  # decomposed input gives the same slug
    ],
)
def test_slugify(title: str, slug: str) -> None:
    assert slugify(title) == slug
    assert slugify(slug) == slug


@pytest.mark.parametrize("title", ["", "   ", "!!!", "///", "📷 🌱", "-/-"])
def test_titles_without_letters_or_digits_are_refused(title: str) -> None:
    with pytest.raises(ValueError, match="no letter or digit"):
        slugify(title)
