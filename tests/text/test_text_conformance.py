"""Every case of the shared wikilink conformance file, one test per case id.

The file lives outside the repository (``../shared/conformance/wikilink-cases.json`` from the repo root); when
it is absent the tests skip and say where they looked. Cases of the same format that it lacks are kept beside this
test (``wikilink-cases-local.json``) and always run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from vaultgraph.text.wikilinks import WikiLink, parse, resolve

pytestmark = pytest.mark.text

CASES_FILE = (Path(__file__).resolve().parents[2] / "../shared/conformance/wikilink-cases.json").resolve()
LOCAL_CASES_FILE = Path(__file__).with_name("wikilink-cases-local.json")
# A case notes live at the vault root unless it says otherwise (see fs-shortest-path).
SOURCE_PATH = "conformance-source.md"
# Case id -> why we knowingly differ from it. Each becomes a strict xfail, so a fix is noticed.
KNOWN_DEVIATIONS: dict[str, str] = {}
LINK_FIELDS = ("target", "heading", "block", "alias", "embed")


def _load_cases(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    cases: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["cases"]
    return cases


CASES = _load_cases(CASES_FILE)
LOCAL_CASES = _load_cases(LOCAL_CASES_FILE)
MISSING = pytest.param(
    None,
    id="conformance-file-missing",
    marks=pytest.mark.skip(reason=f"conformance cases not found at {CASES_FILE}"),
)


def _params(cases: list[dict[str, Any]]) -> list[Any]:
    params: list[Any] = [] if CASES_FILE.is_file() else [MISSING]
    for case in cases:
        marks = []
        if case["id"] in KNOWN_DEVIATIONS:
            marks.append(pytest.mark.xfail(reason=KNOWN_DEVIATIONS[case["id"]], strict=True))
        params.append(pytest.param(case, id=case["id"], marks=marks))
    return params


def _as_dicts(links: tuple[WikiLink, ...]) -> list[dict[str, Any]]:
    return [{field: getattr(link, field) for field in LINK_FIELDS} for link in links]


def _expected(links: list[dict[str, Any]]) -> list[dict[str, Any]]:
    # The semantics compare aliases after strip().
    return [
        {field: (link[field].strip() if field == "alias" and link[field] else link[field]) for field in LINK_FIELDS}
        for link in links
    ]


@pytest.mark.parametrize("case", _params(CASES + LOCAL_CASES))
def test_parse_matches_case(case: dict[str, Any]) -> None:
    expect = case["expect"]
    parsed = parse(case["input"])

    if "links" in expect:
        assert _as_dicts(parsed.links) == _expected(expect["links"])
    if "tags" in expect:
        assert list(parsed.tags) == expect["tags"]
    if "frontmatter_links" in expect:
        assert _as_dicts(parsed.frontmatter_links) == _expected(expect["frontmatter_links"])
    if "frontmatter_tags" in expect:
        assert list(parsed.frontmatter_tags) == expect["frontmatter_tags"]


@pytest.mark.parametrize("case", _params([case for case in CASES + LOCAL_CASES if "resolves" in case["expect"]]))
def test_resolution_matches_case(case: dict[str, Any]) -> None:
    vault = case["expect"].get("vault", [])
    resolved = {target: resolve(target, SOURCE_PATH, vault) for target in case["expect"]["resolves"]}

    assert resolved == case["expect"]["resolves"]


def test_every_case_asserts_something() -> None:
    assert LOCAL_CASES, f"the repository's own cases are missing at {LOCAL_CASES_FILE}"
    cases = CASES + LOCAL_CASES
    assert len({case["id"] for case in cases}) == len(cases), "case ids must be unique"
    asserted = {"links", "tags", "frontmatter_links", "frontmatter_tags", "resolves"}
    assert all(asserted & case["expect"].keys() for case in cases)
