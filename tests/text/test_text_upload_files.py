"""Uploaded files: the names they are stored under and the content checks, as pure functions."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vaultgraph.text.upload_files import Refused, check_content, numbered, storage_name, suffix_of

pytestmark = pytest.mark.text


@pytest.mark.parametrize(("client", "stored"), [
    ("report.md", "report.md"),
    ("Meeting notes (v2).MD", "Meeting notes (v2).md"),
    ("../../etc/passwd.md", "passwd.md"),
    ("/abs/path/x.txt", "x.txt"),
    ("C:\\Users\\me\\notes.txt", "notes.txt"),
    (".env.md", "env.md"),
    ("a\x00b\x1f\x7fc.md", "abc.md"),
    ("\u202egnp.md", "gnp.md"),
    ("résumé – 2026.md", "résumé - 2026.md"),
    ("what?*<>|\".md", "what.md"),
    ("....md", "upload.md"),
    ("x" * 300 + ".md", "x" * 100 + ".md"),
])
def test_storage_names_are_safe_and_readable(client: str, stored: str) -> None:
    assert storage_name(client) == stored


@given(st.text(max_size=200))
def test_a_storage_name_is_never_a_path(client: str) -> None:
    name = storage_name(client)
    assert "/" not in name and "\\" not in name and name not in ("", ".", "..")
    assert not name.startswith(".")
    assert all(ord(ch) >= 32 and ch != "\x7f" for ch in name)


def test_numbered_names_keep_the_suffix() -> None:
    assert [numbered("plan.md", n) for n in (1, 2, 10)] == ["plan.md", "plan-2.md", "plan-10.md"]
    assert suffix_of("a/b/C.JSON") == ".json"
    assert suffix_of("noext") == ""


@pytest.mark.parametrize(("suffix", "data"), [
    (".md", "# Café\n".encode()), (".txt", b""), (".json", b'{"a": 1}'), (".yaml", b"a: [1, 2]\n"),
    (".yml", b"--- 1\n--- 2\n"), (".csv", b'a,b\n"x, y",2\n'), (".tsv", b"a\tb\n"), (".html", b"<p>hi</p>"),
    (".md", b"\xef\xbb\xbf# With a BOM\n"),
])
def test_text_that_is_what_its_name_says_passes(suffix: str, data: bytes) -> None:
    assert check_content(suffix, data) == data.decode("utf-8")


@pytest.mark.parametrize(("suffix", "data", "why"), [
    (".exe", b"MZ", "not an accepted format"),
    ("", b"text", "no suffix"),
    (".md", b"abc\x00def", "NUL"),
    (".md", b"\x89PNG\r\n\x1a\n", "not UTF-8"),
    (".txt", b"bell\x07", "control characters"),
    (".json", b"{'single': 1}", "not JSON"),
    (".yaml", b"a: b: c", "not YAML"),
    (".csv", b'"open,1\n', "not CSV"),
])
def test_content_that_is_not_what_its_name_says_is_refused(suffix: str, data: bytes, why: str) -> None:
    with pytest.raises(Refused) as refused:
        check_content(suffix, data)
    assert refused.value.code == "UNSUPPORTED_FORMAT"
    assert why in refused.value.reason


@pytest.mark.parametrize("suffix", [".pdf", ".docx", ".pptx", ".xlsx"])
def test_a_converted_format_is_judged_when_it_is_converted_not_when_it_is_stored(suffix: str) -> None:
    assert check_content(suffix, b"anything: a corrupt file fails its own enrichment later") is None
