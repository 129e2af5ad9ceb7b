"""The simulated clients of `bench/load_mixed.py`: a locustfile (run by the `locust` CLI, never imported by tests).

Each user takes its own API key (so the per-key rate limit of 50/s applies to each client as in production, and no
client starves another), then mixes reads, searches and writes over the seeded tenant. A GraphQL answer carrying
`errors` counts as a failure even with status 200. The seeded ids and keys come from the JSON file named by
VAULTGRAPH_LOAD_SEED (written by load_mixed.py)."""

from __future__ import annotations

import itertools
import json
import os
import random
from pathlib import Path
from typing import Any

from locust import between, task
from locust.contrib.fasthttp import FastHttpUser

SEED = json.loads(Path(os.environ["VAULTGRAPH_LOAD_SEED"]).read_text())
KEYS = itertools.cycle(SEED["keys"])
NOTES: list[str] = SEED["notes"]
WORDS: list[str] = SEED["words"]

DOCUMENTS = "query($after: String) { documents(first: 20, after: $after) { totalCount pageInfo { endCursor } " \
            "edges { node { id path title enrichment { stage } } } } }"
NOTES_PAGE = "query($after: String) { notes(first: 20, after: $after) { totalCount pageInfo { endCursor } " \
             "edges { node { id slug title tags } } } }"
BACKLINKS = "query($id: ID!) { node(id: $id) { id ... on Item { title backlinks(first: 20) { totalCount " \
            "edges { node { id type context from { id title } } } } } } }"
TRAVERSE = "query($id: ID!) { traverse(from: [$id], hops: 2, maxNodes: 200) { count " \
           "nodes { depth item { id title } } } }"
SEARCH = "query($q: String!, $mode: SearchMode!) { search(query: $q, mode: $mode, limit: 10) " \
         "{ score snippet item { id title } } }"
SAVE = "mutation($input: NoteInput!) { saveNote(input: $input) { created indexed note { id } } }"


class Client(FastHttpUser):
    wait_time = between(0.5, 1.5)

    def on_start(self) -> None:
        self.headers = {"Authorization": f"Bearer {next(KEYS)}", "content-type": "application/json"}
        self.rng = random.Random()

    def _ask(self, name: str, query: str, variables: dict[str, Any]) -> None:
        with self.client.post("/graphql", data=json.dumps({"query": query, "variables": variables}),
                              headers=self.headers, name=name, catch_response=True) as response:
            if response.status_code != 200:  # 0: no answer (the client's 60 s network timeout, a reset)
                detail = response.error if response.status_code == 0 else (response.text or "")[:200]
                response.failure(f"HTTP {response.status_code}: {detail}")
                return
            body = response.json()
            if body.get("errors"):
                code = body["errors"][0].get("extensions", {}).get("code")
                response.failure(f"{code}: {body['errors'][0].get('message', '')[:200]}")

    def _words(self, n: int) -> str:
        return " ".join(self.rng.sample(WORDS, n))

    @task(3)
    def documents_page(self) -> None:
        self._ask("documents page", DOCUMENTS, {})

    @task(3)
    def notes_page(self) -> None:
        self._ask("notes page", NOTES_PAGE, {})

    @task(4)
    def backlinks(self) -> None:
        self._ask("backlinks", BACKLINKS, {"id": self.rng.choice(NOTES)})

    @task(3)
    def traverse(self) -> None:
        self._ask("traverse", TRAVERSE, {"id": self.rng.choice(NOTES)})

    @task(3)
    def keyword_search(self) -> None:
        self._ask("search keyword", SEARCH, {"q": self._words(2), "mode": "KEYWORD"})

    @task(3)
    def hybrid_search(self) -> None:
        self._ask("search hybrid", SEARCH, {"q": self._words(3), "mode": "HYBRID"})

    @task(2)
    def save_note(self) -> None:
        target = self.rng.randrange(len(NOTES))
        body = f"{self._words(12)}. See [[Seed note {target}]]. #load"
        self._ask("saveNote", SAVE, {"input": {"title": f"Load {self.rng.getrandbits(48):x}", "body": body}})
