"""Bad-input fuzzing: hundreds (`make test`) or thousands (`make test-all`) of malformed or hostile HTTP requests
against the real server.

A seeded generator (VAULTGRAPH_FUZZ_SEED, printed with every failure) makes each request from one of a set of
families: GraphQL syntax errors, deep nesting, alias bombs, huge `first`/`limit`/`maxNodes`, wrong variable types,
unknown fields and arguments, oversized bodies, batches over the cap, non-JSON bodies, wrong content types, bad
multipart uploads, path-traversal names, unicode oddities and huge strings. Every answer must be under 500, carry no
stack trace and no Cypher, and each error in it must have a code; afterwards /healthz and a normal query still work,
and no hostile name reached the graph.

A second test draws operations from the live schema with hypothesis-graphql (queries and mutations, valid and with
one schema violation each): zero 5xx, zero INTERNAL. `VAULTGRAPH_FUZZ_EXAMPLES` sets how many (60 by default, a few
seconds; `make test-all` runs a long one)."""

from __future__ import annotations

import asyncio
import json
import os
import random
import string
from collections import Counter
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import UTC
from typing import Any

import httpx
import hypothesis
import pytest
from graphql import GraphQLSchema
from hypothesis import strategies as st
from hypothesis_graphql import nodes
from hypothesis_graphql import strategies as gql_st
from hypothesis_graphql.strategies import Mode

from tests.support.server import FRESH_CONNECTIONS, RunningServer, run_server
from tests.support.tiers import sized
from vaultgraph.config import Settings

pytestmark = [pytest.mark.security, pytest.mark.api, pytest.mark.timeout(600)]  # a busy shared 2-core box

SEED = int(os.environ.get("VAULTGRAPH_FUZZ_SEED", "8"))
REQUESTS = sized(700, 2100)  # every family some 20 to 80 times in `make test`, three times that in test-all
CONCURRENCY = 12
BODY_CAP = 64 * 1024
# Text that must never reach a client: Python internals, driver names, Cypher.
LEAKS = ["traceback", "neo4j", "match (", "merge (", "return ", "unwind ", 'file "', "exception:", "cypher",
         "vaultgraph/", ".py\""]

VALID = [
    "{ documents(first: 5) { totalCount edges { node { id path title } } } }",
    "{ notes(first: 5) { edges { node { id slug backlinks { edges { node { id } } } } } } }",
    '{ search(query: "solar", mode: HYBRID, limit: 5) { item { id } score } }',
    '{ traverse(from: ["note_x"], hops: 2) { count } }',
    "{ graph(limit: 10) { nodes { id } } }",
    "{ tags { tag count } }",
    '{ contextPack(query: "x", budgetTokens: 100) { text } }',
    'mutation { saveNote(input: {title: "Fuzz", body: "b"}) { note { id } } }',
    'mutation { createDocument(input: {path: "fuzz.md", content: "x"}) { id } }',
]
FIELDS = ["documents", "notes", "search", "traverse", "graph", "canvas", "tags", "node", "document", "note",
          "contextPack", "ghosts", "enrichmentProgress", "searchReport"]
HOSTILE_NAMES = [
    "../../etc/passwd", "../../../../../../etc/shadow", "/etc/passwd", "/", "..", ".", "a/../../b.md",
    "..\\..\\windows\\system32", "C:\\boot.ini", "notes/\x00evil.md", "\x00", "foo\x00.md", "%2e%2e%2fetc%2fpasswd",
    "..%2f..%2fetc", "\u202egnp.exe", "a\u0000b", "\ud800", "\udfff.md", "con.md", "\u200b\u200b", " ",
    "notes//double.md", "~/.ssh/id_rsa", "$(reboot)", "`id`", "{{7*7}}", "' OR 1=1 --", "\" } ) DETACH DELETE n //",
    "x" * 5000, "\n\n", "\t", "e\u0301" * 300, "\U0001f4a9" * 200, "\ufeffbom.md", "nested/" * 200 + "x.md",
]
WRONG_VALUES: list[Any] = [None, True, False, 0, -1, 2**31, 2**63, 1e308, -1e308, 1.5, "", "x", "1", [], [1, 2],
                           {}, {"a": 1}, [None], "\x00", "9" * 400]


@dataclass
class Sent:
    family: str
    method: str = "POST"
    path: str = "/graphql"
    content: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    files: dict[str, Any] | None = None
    data: dict[str, str] | None = None
    params: dict[str, str] | None = None
    must_fail: bool = True  # the request is invalid: the answer must carry an error (with a code)


def _json(family: str, payload: Any, must_fail: bool = True, **headers: str) -> Sent:
    return Sent(family, content=json.dumps(payload).encode(), must_fail=must_fail,
                headers={"content-type": "application/json", **headers})


def _op(query: str, variables: Any = None) -> dict[str, Any]:
    return {"query": query, "variables": variables} if variables is not None else {"query": query}


def _syntax(rng: random.Random) -> Sent:
    base = rng.choice(VALID)
    cut = rng.randrange(1, len(base))
    variants = [
        base[:cut], base[cut:], base.replace("{", "", 1), base.replace("}", "", 1), base + "}" * rng.randint(1, 9),
        base.replace("(", "((", 1), "".join(rng.choice("{}()[]:!$@.,=\"'#\\|&") for _ in range(rng.randint(1, 300))),
        "query " + rng.choice(FIELDS), "{" * rng.randint(1, 500), "}", "", "   ", "query { }", "fragment F on X",
        "query($a: ) { x }", "{ documents(first: ) { totalCount } }", '{ search(query: "unterminated) { score } }',
        "subscription { enrichmentProgress { total } }", "mutation { }", "{ ...Missing }",
        "query Q { a } query Q { a }",
    ]
    return _json("syntax", _op(rng.choice([v for v in variants if v != base])))


def _depth(rng: random.Random) -> Sent:
    depth = rng.randint(6, 80)
    inner = "id"
    for _ in range(depth):
        inner = f"backlinks {{ edges {{ node {{ from {{ {inner} }} }} }} }}"
    return _json("depth", _op(f"{{ notes {{ edges {{ node {{ {inner} }} }} }} }}"))


def _aliases(rng: random.Random) -> Sent:
    count = rng.choice([16, 20, 50, 200, 1000])
    target = rng.choice(["__typename", "tags { tag }", "documents { totalCount }",
                         'createDocument(input: {path: "bomb.md", content: "x"}) { id }'])
    body = " ".join(f"a{i}: {target}" for i in range(count))
    return _json("aliases", _op(f"{'mutation' if 'create' in target else 'query'} {{ {body} }}"))


def _between(low: int, high: int) -> Callable[[int], bool]:
    return lambda n: low <= n <= high


SIZED: list[tuple[str, Callable[[int], bool] | None]] = [
    ("{{ documents(first: {n}) {{ totalCount }} }}", _between(1, 100)),
    ("{{ notes(first: {n}) {{ edges {{ node {{ id }} }} }} }}", _between(1, 100)),
    ('{{ search(query: "solar", limit: {n}) {{ score }} }}', _between(1, 100)),
    ("{{ graph(limit: {n}) {{ nodes {{ id }} }} }}", _between(1, 2000)),
    ('{{ traverse(from: ["doc_x"], hops: {n}, maxNodes: {n}) {{ count }} }}', _between(1, 5)),
    ("{{ ghosts(first: {n}) {{ ref }} }}", _between(1, 50)),
    ('{{ canvas(center: "note_x", hops: {n}) }}', lambda n: False),  # no such center: an error whatever the size
    # Sizes are checked at any depth and whether or not the field runs (schema/extensions/sizes.py): a nested page that
    # only counts, or under an empty page, is refused like a top-level one; so is graph's `hops` without a center.
    ('{{ contextPack(query: "x", budgetTokens: {n}, maxItems: {n}) {{ text }} }}', _between(16, 20)),
    ("{{ documents(first: 100) {{ edges {{ node {{ backlinks(first: {n}) {{ totalCount }} }} }} }} }}",
     _between(1, 100)),
    ("{{ graph(hops: {n}, limit: 10) {{ nodes {{ id }} }} }}", _between(1, 5)),
]


def _sizes(rng: random.Random) -> Sent:
    huge = rng.choice([101, 1000, 2001, 10**6, 2**31 - 1, 2**31, 2**53, -1, -(2**31) - 1, 0])
    template, valid = rng.choice(SIZED)
    return _json("sizes", _op(template.format(n=huge)), must_fail=valid is not None and not valid(huge))


def _wrong_types(rng: random.Random) -> Sent:
    query, name = rng.choice([
        ("query($n: Int) { documents(first: $n) { totalCount } }", "n"),
        ("query($q: String!) { search(query: $q) { score } }", "q"),
        ("query($id: ID!) { node(id: $id) { id } }", "id"),
        ("query($ids: [ID!]!) { traverse(from: $ids) { count } }", "ids"),
        ("query($m: SearchMode!) { search(query: \"x\", mode: $m) { score } }", "m"),
        ("mutation($input: NoteInput!) { saveNote(input: $input) { note { id } } }", "input"),
        ("mutation($input: DocumentInput!) { createDocument(input: $input) { id } }", "input"),
        ("query($d: Direction!) { traverse(from: [], direction: $d) { count } }", "d"),
    ])
    value = rng.choice([*WRONG_VALUES, {"title": 5}, {"path": ["x"], "content": None}, {"title": "t", "scope": "ALL"},
                        {"path": "x.md", "content": "x", "extra": 1}, ["a", 1, None]])
    variables: Any = {name: value}
    if rng.random() < 0.15:
        variables = rng.choice(["x", 5, [1], True])  # variables themselves of the wrong shape
    # Some wrong values coerce legitimately (an Int id, "x" as an ID); those answer data or a coded error.
    return _json("types", _op(query, variables), must_fail=False)


def _unknown(rng: random.Random) -> Sent:
    word = "".join(rng.choice(string.ascii_letters) for _ in range(rng.randint(1, 30)))
    query = rng.choice([
        f"{{ {word} }}", f"{{ documents {{ edges {{ node {{ {word} }} }} }} }}",
        f"{{ documents({word}: 1) {{ totalCount }} }}",
        f"query($x: {word}) {{ tags {{ tag }} }}", f"mutation {{ {word}(input: {{}}) {{ id }} }}",
        f'{{ search(query: "x", mode: {word.upper()}) {{ score }} }}', f"{{ __type(name: \"{word}\") {{ name }} }}",
        f"{{ tags {{ tag @{word} }} }}", f"{{ ... on {word} {{ id }} }}",
    ])
    operation: dict[str, Any] = _op(query)
    if rng.random() < 0.2:
        operation["operationName"] = word
        operation["query"] = "query A { tags { tag } } query B { tags { count } }"
    return _json("unknown", operation, must_fail="__type" not in query)


def _oversized(rng: random.Random) -> Sent:
    size = BODY_CAP + rng.randint(1, BODY_CAP)
    payload = rng.choice([
        _op("{ tags { tag } }", {"pad": "x" * size}), _op("{ tags { tag } }" + " " * size),
        _op('mutation($b: String!) { saveNote(input: {title: "big", body: $b}) { note { id } } }', {"b": "y" * size}),
    ])
    sent = _json("oversized", payload)
    if rng.random() < 0.3:  # a lying Content-Length
        sent.headers["content-length"] = str(rng.choice([10, 100]))
        sent.content = sent.content[:int(sent.headers["content-length"])] if sent.content else b""
    return sent


def _batches(rng: random.Random) -> Sent:
    count = rng.choice([11, 12, 50, 500])
    item = rng.choice([_op("{ __typename }"), _op("{ tags { tag } }"), "x", 1, None, [], {}])
    payload: Any = [item] * count
    if rng.random() < 0.3:
        payload = rng.choice([[], [[]], [1, 2, 3], ["{ tags { tag } }"], [None], [{"query": 7}]])
    return _json("batches", payload, must_fail=payload != [])  # an empty batch answers an empty list


def _not_json(rng: random.Random) -> Sent:
    body = rng.choice([
        b"", b"{", b"}", b"[", b"nul", b"null", b"1", b'"query"', b"true", b'{"query": }',
        b'{"query": "{ tags { tag } }"',
        bytes(rng.randrange(256) for _ in range(rng.randint(1, 400))), b"\xff\xfe{\x00}", b"\xef\xbb\xbf{}",
        json.dumps({"query": 5}).encode(), json.dumps({"query": None}).encode(), json.dumps({"query": ["x"]}).encode(),
        json.dumps({"query": "{ tags { tag } }", "variables": "x"}).encode(),
        json.dumps({"query": "{ tags { tag } }", "variables": [1]}).encode(),
        json.dumps({"query": "{ tags { tag } }", "operationName": 5}).encode(),
        json.dumps({"query": "{ tags { tag } }", "extensions": "x"}).encode(), json.dumps({}).encode(),
        b'{"query": "{ tags { tag } }", "query": 1}', b'{"query": "\\ud800"}', b"[" * 5000 + b"]" * 5000,
        b'{"a":' * 3000 + b"1" + b"}" * 3000,
    ])
    return Sent("not-json", content=body, headers={"content-type": "application/json"})


def _content_types(rng: random.Random) -> Sent:
    kind = rng.choice(["text/plain", "application/xml", "application/x-www-form-urlencoded", "", "image/png",
                       "application/json; charset=utf-16", "multipart/form-data", "application/graphql",
                       "application/json-patch+json", "*/*", "text/html; charset=nonsense"])
    body = rng.choice([b'{"query": "{ tags { tag } }"}', b"query=%7B+tags+%7B+tag+%7D+%7D", b"<q/>",
                       "{ tags { tag } }".encode("utf-16")])
    headers = {"content-type": kind} if kind else {}
    # application/graphql and the form body are legitimate transports of some servers; ours may answer them or not.
    return Sent("content-type", content=body, headers=headers, must_fail=False)


UPLOAD = ("mutation($files: [Upload!]!, $folder: String) { uploadDocuments(files: $files, folder: $folder) "
          "{ files { path } } }")


def _uploads(rng: random.Random) -> Sent:
    name = rng.choice(["notes.md", "../../etc/passwd", "/etc/passwd", "a\x00.md", "evil.exe", "x.md", "\u202egnp.md"])
    content = rng.choice([b"\x7fELF\x02\x01\x01" + bytes(200), b"MZ\x90\x00" + bytes(100), b"\x89PNG\r\n\x1a\n",
                          b"# fine\n", b"\x00" * 50, bytes(rng.randrange(256) for _ in range(300))])
    folder = rng.choice([None, "../../etc", "/abs", "ok", "a\x00b"])
    operations = json.dumps({"query": UPLOAD, "variables": {"files": [None], "folder": folder}})
    mapping = rng.choice(['{"0": ["variables.files.0"]}', '{"0": ["variables.nothing"]}', "not json", "{}",
                          '{"9": ["variables.files.0"]}', '{"0": "variables.files.0"}', '[1]'])
    headers = {} if rng.random() < 0.3 else {"Apollo-Require-Preflight": "true"}
    data = rng.choice([{"operations": operations, "map": mapping}, {"operations": "{", "map": mapping},
                       {"map": mapping}, {"operations": operations}])
    # A well-formed text upload with the preflight header may be stored (under a generated, cleaned name); the
    # test checks afterwards that no stored path escapes the workspace. Everything else must be refused.
    well_formed = (mapping == '{"0": ["variables.files.0"]}' and data.get("operations") == operations
                   and content == b"# fine\n" and name.endswith(".md") and folder in (None, "ok") and bool(headers))
    return Sent("upload", files={"0": (name, content, "text/markdown")}, data=data, headers=headers,
                must_fail=not well_formed)


def _traversal(rng: random.Random) -> Sent:
    name = rng.choice(HOSTILE_NAMES)
    query, variables = rng.choice([
        ("mutation($p: String!) { createDocument(input: {path: $p, content: \"x\"}) { id path } }", {"p": name}),
        ("mutation($t: String!) { saveNote(input: {title: $t, body: \"b\"}) { note { id slug } } }", {"t": name}),
        ("mutation($s: String!) { saveNote(input: {title: \"t\", slug: $s}) { note { id slug } } }", {"s": name}),
        ("query($p: String!) { document(path: $p) { id } }", {"p": name}),
        ("query($s: String!) { note(slug: $s) { id } }", {"s": name}),
        ("mutation($p: String!) { importVault(path: $p) { imported } }", {"p": name.lstrip("/") or "x"}),
        ("mutation($p: String!) { exportVault(path: $p) { written } }", {"p": name.lstrip("/") or "x"}),
        ("mutation($a: String!) { createDocument(input: {path: \"a.md\", content: \"x\", scope: PERSONAL, "
         "agentId: $a}) { id } }", {"a": name}),
        ("query($t: String!) { documents(teamId: $t) { totalCount } }", {"t": name}),
        ("query($q: String!) { search(query: $q) { score } }", {"q": name}),
    ])
    # Lookups of odd names may answer null or an empty page; writes and path arguments must be refused.
    harmful = ".." in name or "\x00" in name or name.startswith(("/", "~")) or "\\" in name
    writes = "mutation" in query and "$t" not in query and "$s" not in query
    sent = _json("traversal", _op(query, variables), must_fail=harmful and writes)
    if rng.random() < 0.2:
        sent.headers[rng.choice(["X-Vaultgraph-Tenant", "X-Vaultgraph-Agent", "X-Vaultgraph-Teams"])] = rng.choice(
            ["../x", "a" * 500, "..", "t/../u", "%00", "a,b,../c", "*"])
        sent.must_fail = True
    return sent


def _huge_strings(rng: random.Random) -> Sent:
    size = rng.choice([2001, 10_000, 50_000])
    text = rng.choice(["a", "\U0001f4a9", "\u0301", " ", "[[", "#"]) * size
    query, variables = rng.choice([
        ("query($q: String!) { search(query: $q) { score } }", {"q": text}),
        ("mutation($t: String!) { saveNote(input: {title: $t}) { note { id } } }", {"t": text}),
        ("mutation($t: String!) { captureNote(text: $t) { id } }", {"t": text}),
        ("query($q: String!) { contextPack(query: $q, budgetTokens: 100) { text } }", {"q": text}),
    ])
    return _json("huge-strings", _op(query, variables), must_fail="search" in query or "saveNote" in query)


def _get(rng: random.Random) -> Sent:
    query = rng.choice([*VALID, "{", "mutation { captureNote(text: \"get\") { id } }", "x" * 3000])
    params = rng.choice([{"query": query}, {"query": query, "variables": "{bad"}, {"variables": "{}"}, {}])
    return Sent("get", method="GET", params=params, headers={"accept": "application/json"},
                must_fail=query not in VALID or "query" not in params or "variables" in params and params.get(
                    "variables") == "{bad" or query.startswith("mutation"))


def _auth(rng: random.Random) -> Sent:
    # Only bytes HTTP allows in a header: uvicorn itself answers a plain-text 400 to the rest, before any app runs.
    value = rng.choice(["Bearer", "Bearer  vg_x", "Bearer vg_" + "x" * 40, "Bearer vg_" + "y" * 500,
                        "Basic Zm9vOmJhcg==", "bearer vg_abc", "Bearer vg_%C3%A9t%C3%A9", "Token x", "x" * 4000])
    return _json("auth", _op("{ tags { tag } }"), authorization=value)


FAMILIES: list[tuple[Callable[[random.Random], Sent], int]] = [
    (_syntax, 3), (_depth, 2), (_aliases, 2), (_sizes, 3), (_wrong_types, 3), (_unknown, 3), (_oversized, 1),
    (_batches, 2), (_not_json, 3), (_content_types, 2), (_uploads, 2), (_traversal, 4), (_huge_strings, 1),
    (_get, 1), (_auth, 1),
]


def _refused_unread(sent: Sent) -> bool:
    too_big = len(sent.content or b"") > BODY_CAP
    return too_big or (sent.family == "upload" and "Apollo-Require-Preflight" not in sent.headers)


def _errors(body: Any) -> list[dict[str, Any]]:
    """Every error object of an answer (a batch answers a list of results)."""
    results = body if isinstance(body, list) else [body]
    out = []
    for result in results:
        assert isinstance(result, dict), result
        errors = result.get("errors") or []
        assert isinstance(errors, list)
        out.extend(errors)
    return out


@pytest.fixture(scope="module")
async def fuzzed(settings: Settings) -> AsyncIterator[RunningServer]:
    """Development mode (the tenant from a header), a small body cap so oversized bodies are cheap to send, no rate
    limit nor upload concurrency limit (a 429 would hide what the request would have done), no enrichment workers
    (nothing to enrich)."""
    update = {"port": 0, "max_body_bytes": BODY_CAP, "rate_limit_per_second": 0.0, "upload_max_concurrent": 0,
              "enrichment_workers": False}
    async with run_server(settings.model_copy(update=update)) as running:
        yield running


async def test_hostile_requests_get_coded_refusals(fuzzed: RunningServer, tenant: str) -> None:
    rng = random.Random(SEED)
    families = [f for f, weight in FAMILIES for _ in range(weight)]
    requests = [rng.choice(families)(rng) for _ in range(REQUESTS)]
    gate = asyncio.Semaphore(CONCURRENCY)
    seen: Counter[tuple[str, int]] = Counter()
    problems: list[str] = []

    async def send(client: httpx.AsyncClient, n: int, sent: Sent) -> None:
        headers = {"X-Vaultgraph-Tenant": tenant, **sent.headers}
        async with gate:
            try:
                response = await client.request(sent.method, sent.path, content=sent.content, headers=headers,
                                                       files=sent.files, data=sent.data, params=sent.params)
            except httpx.TransportError as exc:
                if _refused_unread(sent) and isinstance(exc, httpx.ReadError | httpx.WriteError |
                                                        httpx.RemoteProtocolError):
                    # Refused before its body was read (413, or 403 for an upload without the preflight header):
                    # the server answers and closes, and the kernel may reset the socket before the client has read
                    # the answer. A race of early refusal that any HTTP/1.1 server has; counted, not a failure.
                    seen[(sent.family, 0)] += 1
                    return
                problems.append(f"#{n} {sent.family}: {type(exc).__name__} {exc}")  # hung up or timed out
                return
        seen[(sent.family, response.status_code)] += 1
        where = f"seed {SEED} #{n} {sent.family} -> {response.status_code}: {response.text[:300]!r}"
        if response.status_code >= 500:
            problems.append(where)
            return
        lowered = response.text.lower()
        if leak := [marker for marker in LEAKS if marker in lowered]:
            problems.append(f"{where} leaks {leak}")
        try:
            body = response.json()
        except ValueError:
            problems.append(f"{where}: not JSON")
            return
        try:
            errors = _errors(body)
        except AssertionError:
            problems.append(f"{where}: not a GraphQL answer")
            return
        if not all(isinstance(e.get("extensions"), dict) and e["extensions"].get("code") for e in errors):
            problems.append(f"{where}: an error without a code")
        if response.status_code >= 400 and not errors:
            problems.append(f"{where}: refused without an error")
        if sent.must_fail and not errors:
            problems.append(f"{where}: accepted")

    # Sent in a shuffled, interleaved order so a slow family cannot hide behind a fast one.
    # A generous timeout: on a loaded machine a slow answer is not a failure, a hung-up connection is.
    async with httpx.AsyncClient(base_url=fuzzed.url, timeout=120, limits=FRESH_CONNECTIONS) as client:
        await asyncio.gather(*(send(client, n, s) for n, s in enumerate(requests)))
    summary = ", ".join(f"{family}:{status}×{count}" for (family, status), count in sorted(seen.items()))
    assert not problems, f"{len(problems)} bad answers (of {REQUESTS}; {summary}):\n" + "\n".join(problems[:40])
    assert sum(seen.values()) == REQUESTS
    assert len({family for family, _ in seen}) == len(FAMILIES), summary

    # Still healthy, still answering, and no hostile name made it into the graph.
    health = await fuzzed.client.get("/healthz")
    assert health.status_code == 200 and health.json()["status"] == "ok", health.text
    assert await fuzzed.data("{ __typename }") == {"__typename": "Query"}
    headers = {"X-Vaultgraph-Tenant": tenant}
    paths = await fuzzed.data("{ documents(first: 100) { edges { node { path } } } }", headers=headers)
    for edge in paths["documents"]["edges"]:
        path = edge["node"]["path"]
        assert ".." not in path.split("/") and not path.startswith("/") and "\x00" not in path, path
    note = await fuzzed.data('mutation { saveNote(input: {title: "After the storm", body: "calm"}) { note { id } } }',
                             headers=headers)
    assert note["saveNote"]["note"]["id"].startswith("note_")


# --- operations generated from the schema (hypothesis-graphql) -----------------------------------------------------

# The default run is the small sibling `make test` runs in seconds; `make test-all` sets a long one.
SCHEMA_EXAMPLES = int(os.environ.get("VAULTGRAPH_FUZZ_EXAMPLES", str(sized(60, 600))))
SCALARS = {
    "Date": st.dates().map(nodes.String),
    "DateTime": st.datetimes(timezones=st.just(UTC)).map(lambda d: nodes.String(d.isoformat())),
    "JSON": st.one_of(st.integers(-(2**31), 2**31 - 1).map(nodes.Int), st.text(max_size=20).map(nodes.String),
                      st.floats(allow_nan=False, allow_infinity=False).map(nodes.Float)),
    "Upload": st.text(max_size=5).map(nodes.String),  # a literal is never a file: refused, with a code
}


def _generated(schema: GraphQLSchema, count: int) -> list[str]:
    """`count` operations drawn by hypothesis from the schema: queries and mutations, valid ones and ones with one
    schema violation; collected first (one hypothesis run, generation only) so they can be sent concurrently."""
    strategy = st.one_of([make(schema, custom_scalars=SCALARS, mode=mode)
                          for make in (gql_st.queries, gql_st.mutations) for mode in (Mode.POSITIVE, Mode.NEGATIVE)])
    found: list[str] = []

    @hypothesis.given(strategy)
    @hypothesis.settings(max_examples=count, database=None, deadline=None, derandomize=True,
                         suppress_health_check=list(hypothesis.HealthCheck), phases=[hypothesis.Phase.generate])
    def collect(operation: str) -> None:
        found.append(operation)

    collect()
    return found


async def test_operations_generated_from_the_schema_never_fail_inside(fuzzed: RunningServer, tenant: str) -> None:
    """Zero 5xx and zero INTERNAL over operations hypothesis-graphql draws from the live schema (every root field,
    valid and invalid arguments, nested selections), sent over HTTP to the real server."""
    schema = fuzzed.app.state.graphql.schema._schema
    operations = _generated(schema, SCHEMA_EXAMPLES)
    gate = asyncio.Semaphore(CONCURRENCY)
    problems: list[str] = []

    async def send(client: httpx.AsyncClient, n: int, operation: str) -> None:
        # A tenant per operation: this test is about what one input does; two concurrent saves of one slug in one
        # tenant are a race of their own (it answered INTERNAL: a unique-constraint error, reported with the issue).
        async with gate:
            response = await client.post("/graphql", json={"query": operation},
                                         headers={"X-Vaultgraph-Tenant": f"{tenant}n{n}"})
        where = f"{response.status_code} for {operation[:400]!r}: {response.text[:300]!r}"
        if response.status_code >= 500:
            problems.append(where)
            return
        errors = _errors(response.json())
        if any(not isinstance(e.get("extensions"), dict) or e["extensions"].get("code") in (None, "INTERNAL")
               for e in errors):
            problems.append(where)

    async with httpx.AsyncClient(base_url=fuzzed.url, timeout=120, limits=FRESH_CONNECTIONS) as client:
        await asyncio.gather(*(send(client, n, operation) for n, operation in enumerate(operations)))
    assert len(operations) >= SCHEMA_EXAMPLES
    assert not problems, f"{len(problems)} of {len(operations)} failed inside:\n" + "\n".join(problems[:20])
