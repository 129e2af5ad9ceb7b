"""The offline embedding models side by side on SciFact: quality, speed, size, load time (issue 24).

Embeds the abstracts (title + body, as a note's vector reads them: `services/indexing.note_text`) and the 300 test
claims with each offline model of `vaultgraph.models.local_embedding.OFFLINE_MODELS`, through `LocalEmbedder`
itself (the server's tokenizer, truncation, batching and pooling), then ranks by exact cosine and prints nDCG@10
(all claims, and the halves A/B of the lever table: even and odd positions) and recall@100 per model. No Neo4j,
no chunks: the model alone, which is what differs.

Speed is paired: the corpus goes in slices of 256 passages, each slice embedded by every model in turn, so a busy
machine slows both alike; the printed ratio is of the summed times.

    .venv/bin/python bench/offline_models.py               # the full corpus (a few minutes per model on 2 cores)
    .venv/bin/python bench/offline_models.py --docs 1000   # every judged abstract and a seeded sample
    .venv/bin/python bench/offline_models.py --models bge-small-en-v1.5 \
        --variant bge-fp32=bge-small-en-v1.5:/path/to/bge-small-en-v1.5.onnx   # another export of a known model
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.search_quality import DATASET, load_dataset, ndcg_at_10, recall_at_100, subset  # noqa: E402
from vaultgraph.models.local_embedding import (  # noqa: E402
    OFFLINE_MODELS,
    LocalEmbedder,
    LocalEmbeddingConfig,
    offline_model,
)
from vaultgraph.services.indexing import note_text  # noqa: E402

SLICE = 256


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, default=DATASET)
    parser.add_argument("--docs", type=int, default=0, help="abstracts (0: all 5,183)")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--models", nargs="*", default=list(OFFLINE_MODELS), choices=list(OFFLINE_MODELS),
                        help="which offline models to run (default: all)")
    parser.add_argument("--variant", action="append", default=[], metavar="NAME=MODEL:ONNX",
                        help="also run MODEL (a setting, e.g. bge-small-en-v1.5) from another ONNX file, as NAME "
                             "(its tokenizer and pooling stay the model's)")
    args = parser.parse_args()
    if not (args.dataset / "corpus.jsonl").is_file():
        print(f"no SciFact at {args.dataset}: ../shared/datasets/scifact is needed", file=sys.stderr)
        return 2
    data = load_dataset(args.dataset)
    ids = subset(data, args.docs, args.seed)
    texts = [note_text(data.corpus[i]["title"], data.corpus[i]["text"]) for i in ids]
    claims = [q for q in data.queries if q in data.qrels]
    embedders = {name: LocalEmbedder(LocalEmbeddingConfig(model=OFFLINE_MODELS[name])) for name in args.models}
    for variant in args.variant:
        name, _, rest = variant.partition("=")
        setting, _, onnx = rest.partition(":")
        embedders[name] = LocalEmbedder(LocalEmbeddingConfig(model=offline_model(setting), model_path=Path(onnx)))
    loads = {name: embedder.load() for name, embedder in embedders.items()}
    seconds = dict.fromkeys(embedders, 0.0)
    parts: dict[str, list[np.ndarray]] = {name: [] for name in embedders}
    for start in range(0, len(texts), SLICE):
        for name, embedder in embedders.items():
            began = time.perf_counter()
            parts[name].append(embedder.embed_sync(texts[start:start + SLICE]))
            seconds[name] += time.perf_counter() - began
        print(f"  {min(start + SLICE, len(texts))}/{len(texts)} passages", file=sys.stderr, flush=True)
    print(f"SciFact: {len(ids)} abstracts, {len(claims)} claims; exact cosine ranking")
    print(f"{'model':<20} {'nDCG@10':>8} {'A':>6} {'B':>6} {'rec@100':>8} {'passages/s':>10} {'load s':>7} {'MB':>5}")
    for name, embedder in embedders.items():
        corpus = np.vstack(parts[name])
        queries = embedder.embed_sync([data.queries[q] for q in claims])
        ranks = np.argsort(-(queries @ corpus.T), axis=1)[:, :100]
        rows = [(ndcg_at_10([ids[j] for j in ranks[n]], data.qrels[q]),
                 recall_at_100([ids[j] for j in ranks[n]], data.qrels[q])) for n, q in enumerate(claims)]
        ndcg = [row[0] for row in rows]
        megabytes = (embedder.config.model_path or embedder.model.model_path()).stat().st_size / 1e6
        print(f"{name:<20} {statistics.mean(ndcg):>8.3f} {statistics.mean(ndcg[0::2]):>6.3f} "
              f"{statistics.mean(ndcg[1::2]):>6.3f} {statistics.mean(r[1] for r in rows):>8.3f} "
              f"{len(texts) / seconds[name]:>10.1f} {loads[name]:>7.1f} {megabytes:>5.0f}")
    first, *others = embedders
    for other in others:
        print(f"time {first} ÷ {other}: {seconds[first] / seconds[other]:.2f}× (paired slices of {SLICE})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
