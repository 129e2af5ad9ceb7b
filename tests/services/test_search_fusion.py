"""Fusion math against hand-computed expectations (pure; no graph)."""

from __future__ import annotations

import pytest

from vaultgraph.services.fusion import ChannelHit, FusionMethod, Normalisation, fuse, roll_up

KEYWORD = [ChannelHit("A", 10.0), ChannelHit("B", 5.0)]  # BM25: normalised by the best, A 1.0 and B 0.5
VECTOR = [ChannelHit("B", 0.8, "B's best chunk"), ChannelHit("C", 0.6)]  # cosines, used as they are


def test_weighted_sum_by_hand() -> None:
    fused = fuse(KEYWORD, VECTOR, FusionMethod.WEIGHTED, 0.4, 0.6)
    # B: 0.4·0.5 + 0.6·0.8 = 0.68 (found by both, adds up); A: 0.4·1.0 = 0.40; C: 0.6·0.6 = 0.36
    assert [(f.item_id, round(f.score, 6)) for f in fused] == [("B", 0.68), ("A", 0.4), ("C", 0.36)]
    b = fused[0]
    assert b.keyword is not None and (b.keyword.score, b.keyword.raw, b.keyword.rank) == (0.5, 5.0, 2)
    assert b.vector is not None and (b.vector.score, b.vector.rank) == (0.8, 1)
    assert b.passage == "B's best chunk"


def test_rrf_by_hand() -> None:
    fused = fuse(KEYWORD, VECTOR, FusionMethod.RRF)
    best = 2 / 61  # rank 1 in both channels
    expected = {"B": (1 / 62 + 1 / 61) / best, "A": (1 / 61) / best, "C": (1 / 62) / best}
    assert [f.item_id for f in fused] == ["B", "A", "C"]
    for f in fused:
        assert f.score == pytest.approx(expected[f.item_id])
    assert fused[1].score == pytest.approx(0.5)


def test_a_single_channel_gets_the_whole_weight() -> None:
    only_keyword = fuse(KEYWORD, [], FusionMethod.WEIGHTED, 0.4, 0.6)
    assert [(f.item_id, f.score) for f in only_keyword] == [("A", 1.0), ("B", 0.5)]
    only_vector = fuse([], VECTOR, FusionMethod.WEIGHTED, 0.4, 0.6)
    assert [(f.item_id, f.score) for f in only_vector] == [("B", 0.8), ("C", 0.6)]
    assert fuse([], VECTOR, FusionMethod.RRF)[0].score == pytest.approx(1.0)


def test_weights_are_rescaled_to_sum_to_one() -> None:
    fused = fuse(KEYWORD, VECTOR, FusionMethod.WEIGHTED, 0.2, 0.3)  # same ratio as 0.4/0.6
    assert [round(f.score, 6) for f in fused] == [0.68, 0.4, 0.36]


def test_negative_cosines_floor_at_zero() -> None:
    [hit] = fuse([], [ChannelHit("X", -0.2)], FusionMethod.WEIGHTED)
    assert hit.score == 0.0 and hit.vector is not None and hit.vector.raw == -0.2


def test_the_floor_normalisation_runs_cosines_from_the_floor_to_a_perfect_match() -> None:
    # Floor 0.2: B 0.8 → (0.8 - 0.2) / 0.8 = 0.75, C 0.6 → 0.5, D under the floor → 0.0; the best is not stretched to 1.
    vector = [*VECTOR, ChannelHit("D", 0.1)]
    fused = fuse(KEYWORD, vector, FusionMethod.WEIGHTED, 0.4, 0.6, normalisation=Normalisation.FLOOR,
                 vector_floor=0.2)
    assert {f.item_id: round(f.vector.score, 6) for f in fused if f.vector} == {"B": 0.75, "C": 0.5, "D": 0.0}
    # B: 0.4·0.5 + 0.6·0.75 = 0.65; A: 0.4·1.0; C: 0.6·0.5 = 0.3; D: 0
    assert [(f.item_id, round(f.score, 6)) for f in fused] == [("B", 0.65), ("A", 0.4), ("C", 0.3), ("D", 0.0)]
    # No floor (it could not be computed): the cosines as they are.
    unfloored = fuse([], VECTOR, FusionMethod.WEIGHTED, normalisation=Normalisation.FLOOR, vector_floor=None)
    assert [(f.item_id, f.score) for f in unfloored] == [("B", 0.8), ("C", 0.6)]


def test_chunks_roll_up_to_their_item_with_the_best_chunk() -> None:
    hits = roll_up([("doc", 0.5, "intro", None), ("note", 0.7, None, None), ("doc", 0.9, "details", None),
                    ("doc", 0.1, "tail", None)])
    assert [(h.item_id, h.raw, h.passage) for h in hits] == [("doc", 0.9, "details"), ("note", 0.7, None)]


def test_a_topic_row_names_the_topic_of_its_item_even_when_a_chunk_scored_best() -> None:
    hits = roll_up([("doc", 0.9, "chunk text", None), ("doc", 0.4, "setup", "t1"), ("doc", 0.6, "usage", "t2"),
                    ("note", 0.5, None, None)])
    assert [(h.item_id, h.passage, h.topic_id) for h in hits] == [("doc", "chunk text", "t2"), ("note", None, None)]


def test_fusion_keeps_the_keyword_channels_topic_over_the_vectors() -> None:
    [hit] = fuse([ChannelHit("doc", 3.0, "kw", "t-kw")], [ChannelHit("doc", 0.7, "vec", "t-vec")], FusionMethod.RRF)
    assert hit.topic_id == "t-kw"
    [hit] = fuse([ChannelHit("doc", 3.0)], [ChannelHit("doc", 0.7, "vec", "t-vec")], FusionMethod.RRF)
    assert hit.topic_id == "t-vec"


def test_ties_are_deterministic() -> None:
    fused = fuse([ChannelHit("y", 1.0), ChannelHit("x", 1.0)], [], FusionMethod.WEIGHTED)
    assert [f.item_id for f in fused] == ["y", "x"]  # equal scores: the better channel rank first
