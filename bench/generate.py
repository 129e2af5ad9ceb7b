"""A made-up but realistic vault, reproducible from a seed.

Notes carry markdown bodies (headings, paragraphs, `#tags`) with five distinct `[[wikilinks]]` each. Link
targets follow a Zipf law over a shuffled rank, so in-degrees are power-law: a few notes are hubs with thousands of
backlinks (they get `kind: moc`), most have a handful. Each note belongs to one of `TOPICS` topics, which gives its
words and its 384-d vector (the topic's centroid plus noise, unit length), so keyword and vector queries have real
neighbourhoods to find. Link contexts come from vaultgraph's own parser, exactly as the save pipeline computes them.
"""

from __future__ import annotations

import hashlib
from collections import deque
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from vaultgraph.text.slugify import slugify
from vaultgraph.text.wikilinks import link_context, parse

DIMENSIONS = 384
LINKS_PER_NOTE = 5
TOPICS = 64
WORDS_PER_TOPIC = 40
ZIPF_EXPONENT = 0.9  # rank exponent of link targets; in-degree then falls off like a wiki's (about k^-2.1)
NOISE = 1.0  # norm of the noise added to a topic centroid (both unit-ish: in-topic cosine about 0.5)
HUB_SHARE = 0.01  # the top ranks are maps of content
ALIAS_SHARE = 0.15  # links written [[Target|alias]]
SENTENCES_PER_TOPIC = 256

_COMMON = (
    "the", "note", "project", "design", "review", "meeting", "idea", "draft", "plan", "question", "answer", "result",
    "follow", "up", "decision", "context", "source", "summary", "detail", "open", "issue", "next", "step", "team",
    "weekly", "reference", "example", "outline", "method", "approach", "problem", "solution", "risk", "cost", "value",
    "change", "update", "version", "release", "metric", "goal", "task", "owner", "status",
)
_KINDS = ("note", "note", "note", "note", "literature", "meeting", "daily")


@dataclass(frozen=True, slots=True)
class NoteSpec:
    id: str
    slug: str
    title: str
    body: str
    tags: tuple[str, ...]
    kind: str
    topic: int


@dataclass(frozen=True, slots=True)
class LinkSpec:
    """One `[[wikilink]]` as the save pipeline stores it: `ref` is the slug, `target_text` what was written."""

    source: int
    target: int
    ref: str
    target_text: str
    label: str | None
    context: str


@dataclass
class Dataset:
    tenant: str
    notes: list[NoteSpec]
    links: list[LinkSpec]
    vectors: np.ndarray  # (notes, DIMENSIONS) float32, unit rows
    topic_words: list[list[str]]
    seed: int
    centroids: np.ndarray = field(repr=False)

    @cached_property
    def first_link(self) -> dict[int, int]:
        """Index in `links` of each note's first link (links are grouped by source, in order)."""
        first: dict[int, int] = {}
        for k, link in enumerate(self.links):
            first.setdefault(link.source, k)
        return first

    @cached_property
    def in_degree(self) -> np.ndarray:
        return np.bincount([link.target for link in self.links], minlength=len(self.notes))

    @cached_property
    def adjacency(self) -> list[list[int]]:
        """Neighbours either way (a traversal with direction BOTH)."""
        both: list[list[int]] = [[] for _ in self.notes]
        for link in self.links:
            both[link.source].append(link.target)
            both[link.target].append(link.source)
        return both

    def reach(self, seed: int, hops: int, cap: int) -> int:
        """Items a BOTH-way BFS reaches from `seed` within `hops` (seed excluded), counting no further than cap+1."""
        seen = {seed}
        frontier = deque([(seed, 0)])
        while frontier:
            node, depth = frontier.popleft()
            if depth == hops:
                continue
            for other in self.adjacency[node]:
                if other not in seen:
                    seen.add(other)
                    if len(seen) - 1 > cap:
                        return cap + 1
                    frontier.append((other, depth + 1))
        return len(seen) - 1


@dataclass(frozen=True, slots=True)
class Seeds:
    """The notes workloads start from: an ordinary note, the biggest hub, and a traversal seed under the cap."""

    ordinary: int
    hub: int
    traverse: int
    traverse_reach: int


def _words(rng: np.random.Generator, count: int) -> list[str]:
    consonants, vowels = "bdfgklmnprstvz", "aeiou"
    seen: set[str] = set()
    out: list[str] = []
    while len(out) < count:
        syllables = int(rng.integers(2, 4))
        word = "".join(consonants[rng.integers(len(consonants))] + vowels[rng.integers(len(vowels))]
                       for _ in range(syllables))
        if word not in seen:
            seen.add(word)
            out.append(word)
    return out


def _targets(rng: np.random.Generator, n: int) -> np.ndarray:
    """(n, LINKS_PER_NOTE) distinct targets per note, none itself, drawn by Zipf over a shuffled rank."""
    rank_to_note = rng.permutation(n)
    weights = 1.0 / np.arange(1, n + 1) ** ZIPF_EXPONENT
    cumulative = np.cumsum(weights / weights.sum())
    want = min(LINKS_PER_NOTE, n - 1)
    out = np.empty((n, want), dtype=np.int64)
    draws = rank_to_note[np.minimum(np.searchsorted(cumulative, rng.random((n, want * 3))), n - 1)]
    for i in range(n):
        picked: list[int] = []
        for target in draws[i]:
            if target != i and target not in picked:
                picked.append(int(target))
                if len(picked) == want:
                    break
        while len(picked) < want:  # rare: the draws kept hitting the same hubs
            target = int(rng.integers(n))
            if target != i and target not in picked:
                picked.append(target)
        out[i] = picked
    return out


def _sentences(rng: np.random.Generator, topic: list[str]) -> list[str]:
    """A pool of sentences for one topic: most words from the topic, the rest common ones."""
    pool = []
    for _ in range(SENTENCES_PER_TOPIC):
        length = int(rng.integers(6, 15))
        draws = rng.integers(0, 10_000, size=length).tolist()
        own = (rng.random(length) < 0.6).tolist()
        words = [topic[j % len(topic)] if mine else _COMMON[j % len(_COMMON)]
                 for j, mine in zip(draws, own, strict=True)]
        pool.append(" ".join(words).capitalize())
    return pool


def _note(rng: np.random.Generator, title: str, topic: int, words: list[str], pool: list[str],
          names: list[str], aliases: list[str | None]) -> tuple[str, list[str], tuple[str, ...]]:
    """The markdown body, each link's context (in order) and the tags."""
    s = [pool[j] for j in rng.integers(0, len(pool), size=9).tolist()]
    links = [f"[[{t}|{a}]]" if a else f"[[{t}]]" for t, a in zip(names, aliases, strict=True)]
    middle = " ".join(f"{s[2 + k]} as in {link}, {s[5 + k].lower()}." for k, link in enumerate(links[1:4]))
    tags = (f"t{topic}-{words[0]}", f"area/{words[3]}")
    body = (f"# {title}\n\n{s[0]}, see {links[0]} for the background. {s[1]}.\n\n"
            f"## {words[1].capitalize()} {words[2]}\n\n{middle}\n\n{s[8]}. Related: {' '.join(links[4:])}\n\n"
            f"#{tags[0]} #{tags[1]}\n")
    contexts, at = [], 0
    for link in links:
        at = body.index(link, at)
        contexts.append(link_context(body, at, at + len(link)))  # the parser's own cut
        at += len(link)
    return body, contexts, tags


def _slug(title: str) -> str:
    """slugify() for the generator's plain ASCII titles, without its Unicode machinery (checked in `verify`)."""
    return title.lower().replace(" ", "-")


def generate(tenant: str, size: int, seed: int) -> Dataset:
    """`size` notes for `tenant`; the same seed gives the same vault."""
    rng = np.random.default_rng(seed)
    vocabulary = _words(rng, TOPICS * WORDS_PER_TOPIC)
    topic_words = [vocabulary[t * WORDS_PER_TOPIC:(t + 1) * WORDS_PER_TOPIC] for t in range(TOPICS)]
    pools = [_sentences(rng, words) for words in topic_words]
    topic_of = rng.integers(0, TOPICS, size=size).tolist()
    picks = rng.integers(0, WORDS_PER_TOPIC, size=(size, 2)).tolist()
    titles = [f"{topic_words[t][a].capitalize()} {topic_words[t][b]} {i}"
              for i, (t, (a, b)) in enumerate(zip(topic_of, picks, strict=True))]
    slugs = [_slug(title) for title in titles]
    targets = (_targets(rng, size) if size > 1 else np.empty((size, 0), dtype=np.int64)).tolist()
    hubs = set(np.argsort(-np.bincount(np.ravel(targets), minlength=size))[: max(1, int(size * HUB_SHARE))].tolist())
    alias_draws = rng.random((size, LINKS_PER_NOTE)).tolist()
    alias_words = rng.integers(0, WORDS_PER_TOPIC, size=(size, LINKS_PER_NOTE)).tolist()
    kinds = rng.integers(0, len(_KINDS), size=size).tolist()
    notes: list[NoteSpec] = []
    links: list[LinkSpec] = []
    salt = hashlib.sha256(f"{tenant}:{seed}".encode()).hexdigest()[:8]
    for i in range(size):
        words = topic_words[topic_of[i]]
        names = [titles[j] for j in targets[i]]
        aliases = [words[w] if d < ALIAS_SHARE else None
                   for d, w in zip(alias_draws[i], alias_words[i], strict=False)][: len(names)]
        body, contexts, tags = _note(rng, titles[i], topic_of[i], words, pools[topic_of[i]], names, aliases)
        notes.append(NoteSpec(id=f"note_{salt}{i:08x}", slug=slugs[i], title=titles[i], body=body, tags=tags,
                              kind="moc" if i in hubs else _KINDS[kinds[i]], topic=topic_of[i]))
        links.extend(LinkSpec(source=i, target=t, ref=slugs[t], target_text=titles[t], label=a, context=c)
                     for t, a, c in zip(targets[i], aliases, contexts, strict=True))
    centroids = _unit(rng.standard_normal((TOPICS, DIMENSIONS)))
    vectors = _sample(rng, centroids, np.asarray(topic_of))
    return Dataset(tenant=tenant, notes=notes, links=links, vectors=vectors, topic_words=topic_words, seed=seed,
                   centroids=centroids)


def verify(dataset: Dataset, sample: int = 25) -> None:
    """The generator's shortcuts agree with vaultgraph's parser and slugify on a sample (RuntimeError if not)."""
    by_source: dict[int, list[LinkSpec]] = {}
    for link in dataset.links:
        by_source.setdefault(link.source, []).append(link)
    for i, note in enumerate(dataset.notes[:sample]):
        parsed = parse(note.body)
        expected = [(slugify(link.target), link.alias, link.context) for link in parsed.links]
        got = [(link.ref, link.label, link.context) for link in by_source.get(i, [])]
        if expected != got or tuple(parsed.unique_tags) != note.tags or slugify(note.title) != note.slug:
            raise RuntimeError(f"generator and parser disagree on note {i}: {expected} != {got}")


def _unit(matrix: np.ndarray) -> np.ndarray:
    unit: np.ndarray = (matrix / np.linalg.norm(matrix, axis=1, keepdims=True)).astype(np.float32)
    return unit


def _sample(rng: np.random.Generator, centroids: np.ndarray, topics: np.ndarray) -> np.ndarray:
    noise = rng.standard_normal((len(topics), centroids.shape[1])) * (NOISE / np.sqrt(centroids.shape[1]))
    return _unit(centroids[topics] + noise)


def query_vectors(dataset: Dataset, count: int) -> np.ndarray:
    """Fresh points from the vault's own distribution (not copies of stored vectors)."""
    rng = np.random.default_rng(dataset.seed + 1)
    return _sample(rng, dataset.centroids, rng.integers(0, TOPICS, size=count))


def keyword_queries(dataset: Dataset, count: int) -> list[str]:
    """Two or three words of one topic: what a person types to find a note on it."""
    rng = np.random.default_rng(dataset.seed + 2)
    queries = []
    for _ in range(count):
        words = dataset.topic_words[int(rng.integers(TOPICS))]
        queries.append(" ".join(words[int(j)] for j in rng.choice(WORDS_PER_TOPIC, int(rng.integers(2, 4)),
                                                                  replace=False)))
    return queries


def exact_top_k(vectors: np.ndarray, queries: np.ndarray, k: int) -> list[set[int]]:
    """Exact cosine neighbours (rows are unit vectors, so a dot product)."""
    scores = queries @ vectors.T
    top = np.argpartition(-scores, min(k, vectors.shape[0] - 1), axis=1)[:, :k]
    return [set(row.tolist()) for row in top]


def pick_seeds(dataset: Dataset, cap: int = 200, hops: int = 2) -> Seeds:
    """Ordinary: the median in-degree among linked notes. Traverse: the note with the widest `hops`-hop
    neighbourhood that still fits under `cap` (ordinary notes two hops from a hub do not), sampled."""
    degree = dataset.in_degree
    hub = int(np.argmax(degree))
    linked = np.flatnonzero(degree > 0)
    median = float(np.median(degree[linked]))
    ordinary = int(linked[np.argmin(np.abs(degree[linked] - median))])
    rng = np.random.default_rng(dataset.seed + 3)
    candidates = rng.permutation(len(dataset.notes))[:2000]
    best, best_reach = ordinary, -1
    for candidate in candidates:
        reach = dataset.reach(int(candidate), hops, cap)
        if best_reach < reach <= cap:
            best, best_reach = int(candidate), reach
    return Seeds(ordinary=ordinary, hub=hub, traverse=best, traverse_reach=best_reach)
