"""Retriever: query embedding, threshold, dedup, depth, validation, session cache, failures."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from lectern.errors import EmbedderMismatch, InvalidInput, ProviderError, ProviderTimeout, VectorIndexError
from lectern.index.base import SearchFilters
from lectern.models import CollectionInfo, SearchHit
from lectern.retrieval import CHAT_MAX_TOP_K, RESERVE, Retriever, fetch_depth
from tests.fakes.hash_embedder import HashEmbedder
from tests.unit.answer_support import ScriptedIndex, answer_settings, filled_index, hit


def scripted(*hits_: object, fail: bool = False) -> tuple[Retriever, ScriptedIndex, HashEmbedder]:
    embedder = HashEmbedder()
    index = ScriptedIndex(list(hits_), fail=fail)  # type: ignore[arg-type]
    return Retriever(embedder, index, answer_settings()), index, embedder


async def test_embeds_the_query_as_a_query() -> None:
    index, embedder = filled_index()
    retriever = Retriever(embedder, index, answer_settings())
    result = await retriever.retrieve(retriever.params("How do I install Gazebo Harmonic?"))
    assert embedder.query_calls == 1
    assert result.hits
    assert result.hits[0].chunk.source_path == "gazebo.md"
    assert result.query_embedding is not None
    assert len(result.query_embedding) == embedder.dimension
    assert [h.rank for h in result.hits] == list(range(1, len(result.hits) + 1))


async def test_threshold_applies_to_dense_similarity() -> None:
    retriever, _, _ = scripted(hit("one", 0.9, score=0.01), hit("two", 0.4, score=0.9), hit("three", 0.7))
    result = await retriever.retrieve(retriever.params("q", threshold=0.5))
    assert [h.chunk.text for h in result.hits] == ["three", "one"]  # ranking score order, 0.4 dropped
    assert result.total_candidates == 3
    assert result.average_score == pytest.approx(0.8)
    assert result.threshold == 0.5


async def test_dedup_by_content_hash_keeps_the_best_score() -> None:
    first = hit("same text", 0.6, score=0.2)
    second = hit("same text", 0.6, score=0.5)
    retriever, _, _ = scripted(first, second, hit("other", 0.5, score=0.3))
    result = await retriever.retrieve(retriever.params("q", threshold=0.0))
    assert [h.chunk.text for h in result.hits] == ["same text", "other"]
    assert result.hits[0].score == 0.5


async def test_fetches_more_candidates_than_top_k_so_threshold_still_fills_it() -> None:
    hits = [hit(f"weak {i}", 0.1) for i in range(5)] + [hit(f"strong {i}", 0.9) for i in range(5)]
    retriever, index, _ = scripted(*hits)
    result = await retriever.retrieve(retriever.params("q", top_k=3, threshold=0.5))
    assert index.asked[0]["top_k"] == fetch_depth(3) > 3
    assert len(result.hits) == 3
    assert all(h.similarity == 0.9 for h in result.hits)


@pytest.mark.parametrize("top_k", [0, 21, -1])
def test_top_k_validated(top_k: int) -> None:
    retriever, _, _ = scripted()
    with pytest.raises(InvalidInput, match="top_k"):
        retriever.params("q", top_k=top_k)


def test_chat_top_k_is_capped_at_ten() -> None:
    retriever, _, _ = scripted()
    assert retriever.params("q", top_k=20).top_k == 20
    with pytest.raises(InvalidInput, match="between 1 and 10"):
        retriever.params("q", top_k=11, max_top_k=CHAT_MAX_TOP_K)


@pytest.mark.parametrize("threshold", [-0.01, 1.01])
def test_threshold_validated(threshold: float) -> None:
    retriever, _, _ = scripted()
    with pytest.raises(InvalidInput, match="threshold"):
        retriever.params("q", threshold=threshold)


def test_blank_query_is_invalid() -> None:
    retriever, _, _ = scripted()
    with pytest.raises(InvalidInput):
        retriever.params("   ")


async def test_retrieval_with_its_confidence_matches_the_two_steps() -> None:
    index, embedder = filled_index()
    retriever = Retriever(embedder, index, answer_settings())
    cache: dict = {}  # type: ignore[type-arg]
    params = retriever.params("How do I install Gazebo Harmonic?", threshold=0.0)
    result, confidence = await retriever.retrieve_assessed(params, cache)
    alone = await retriever.retrieve(params)
    assert [h.chunk.content_hash for h in result.hits] == [h.chunk.content_hash for h in alone.hits]
    assert confidence == retriever.confidence(alone)
    assert confidence.num_chunks == len(result.hits) > 1
    again, again_confidence = await retriever.retrieve_assessed(params, cache)  # from the session cache
    assert again.timings.cached
    assert again_confidence == confidence
    assert embedder.query_calls == 2


async def test_session_cache_serves_identical_retrievals() -> None:
    retriever, index, embedder = scripted(hit("a", 0.9), hit("b", 0.8))
    cache: dict = {}  # type: ignore[type-arg]
    first = await retriever.retrieve(retriever.params("What is X?"), cache)
    again = await retriever.retrieve(retriever.params("what is  X?"), cache)
    assert index.searches == 1
    assert embedder.query_calls == 1
    assert again.timings.cached
    assert not first.timings.cached
    assert [h.chunk.text for h in again.hits] == [h.chunk.text for h in first.hits]
    # Anything that changes the result is part of the key.
    await retriever.retrieve(retriever.params("What is X?", top_k=2), cache)
    await retriever.retrieve(retriever.params("What is X?", threshold=0.3), cache)
    await retriever.retrieve(retriever.params("What is X?", mode="dense"), cache)
    await retriever.retrieve(retriever.params("What is X?", filters=SearchFilters(equals={"a": "b"})), cache)
    assert index.searches == 5


async def test_index_failure_is_qdrant_error() -> None:
    retriever, _, _ = scripted(fail=True)
    with pytest.raises(VectorIndexError, match="Unable to retrieve content") as info:
        await retriever.retrieve(retriever.params("q"))
    assert info.value.code == "QDRANT_ERROR"


class FailingEmbedder(HashEmbedder):
    def __init__(self, error: Exception) -> None:
        super().__init__()
        self.error = error

    def embed_query(self, text: str) -> np.ndarray:
        raise self.error


@pytest.mark.parametrize(
    ("error", "expected"),
    [(RuntimeError("model crashed"), ProviderError), (ProviderTimeout("slow provider"), ProviderTimeout)],
)
@pytest.mark.parametrize("engine", ["embeds inside its search", "never asks for the vector"])
async def test_embedding_failure_is_not_an_index_failure(
    engine: str, error: Exception, expected: type[Exception]
) -> None:
    # The index is handed a function that embeds the query; whether it calls it (while searching) or
    # not (the retriever embeds afterwards), a failing embedder is reported as what it is.
    index = filled_index()[0] if engine == "embeds inside its search" else ScriptedIndex([hit("a", 0.9)])
    retriever = Retriever(FailingEmbedder(error), index, answer_settings())
    with pytest.raises(expected):
        await retriever.retrieve(retriever.params("How do I install Gazebo?"))


async def test_embedder_mismatch_is_refused_clearly() -> None:
    embedder = HashEmbedder()
    index = ScriptedIndex([], info=CollectionInfo(name="docs", embedder_name="local:other", dimension=384))
    retriever = Retriever(embedder, index, answer_settings())
    with pytest.raises(EmbedderMismatch, match="re-ingest"):
        await retriever.retrieve(retriever.params("q"))


async def test_filters_and_mode_reach_the_index() -> None:
    retriever, index, _ = scripted(hit("a", 0.9))
    filters = SearchFilters(equals={"chapter": "2"})
    await retriever.retrieve(retriever.params("q", mode="keyword", filters=filters))
    assert index.asked[0]["mode"] == "keyword"
    assert index.asked[0]["filters"] == filters


async def test_timings_vectors_and_sufficiency() -> None:
    index, embedder = filled_index()
    retriever = Retriever(embedder, index, answer_settings(confidence_medium=0.0, confidence_low=0.0))
    result = await retriever.retrieve(retriever.params("ROS 2 node", top_k=3, threshold=0.0))
    t = result.timings
    assert t.embedding_ms >= 0
    assert t.search_ms >= 0
    assert t.ranking_ms >= 0
    assert all(h.vector is not None for h in result.hits)  # filled in for engines without vectors
    assert result.has_sufficient_context is (len(result.hits) >= 3)
    confidence = retriever.confidence(result)
    assert 0.0 <= confidence.chunk_diversity <= 1.0
    assert "vector" not in result.model_dump()["hits"][0]
    assert "query_embedding" not in result.model_dump()


def test_a_hyphenated_name_is_known_only_as_written() -> None:
    retriever, _, _ = scripted(hit("The agents learn in Unity; ML stands for machine learning.", 0.5))
    assert not retriever.knows("ML-Agents")  # its parts are there, the name is not
    assert retriever.knows("ml-agents")  # lower case: an ordinary hyphenated word, found by its parts
    assert retriever.knows("Unity")


async def test_retrieval_then_runs_in_the_same_call_and_not_on_a_cached_one() -> None:
    index, embedder = filled_index()
    retriever = Retriever(embedder, index, answer_settings())
    cache: dict = {}  # type: ignore[type-arg]
    params = retriever.params("How do I install Gazebo Harmonic?", threshold=0.0)
    seen: list[object] = []

    def then(result: object, confidence: object) -> int:
        seen.append((result, confidence))
        return 7

    result, confidence, made = await retriever.retrieve_assessed_then(params, cache, then)
    assert made == 7
    assert seen == [(result, confidence)]
    assert confidence == retriever.confidence(result)
    again, _, made_again = await retriever.retrieve_assessed_then(params, cache, then)
    assert again.timings.cached
    assert made_again is None  # from the session cache: the caller works it out itself
    assert len(seen) == 1


async def test_the_hits_just_below_top_k_are_kept_as_the_reserve() -> None:
    hits = [hit(f"passage {i}", 0.9 - i / 100) for i in range(9)] + [hit("too far", 0.1)]
    retriever, index, _ = scripted(*(h.model_copy(update={"vector": [1.0, 0.0]}) for h in hits))
    result = await retriever.retrieve(retriever.params("q", top_k=3, threshold=0.5))
    assert all(h.vector is not None for h in result.hits)
    assert [h.chunk.text for h in result.hits] == ["passage 0", "passage 1", "passage 2"]
    # The next RESERVE past the threshold, ranked after the hits; never part of the figures.
    assert [h.chunk.text for h in result.reserve] == [f"passage {i}" for i in range(3, 3 + RESERVE)]
    assert [h.rank for h in result.reserve] == list(range(4, 4 + RESERVE))
    assert all(h.vector is None for h in result.reserve)
    assert result.average_score == pytest.approx(0.89)
    assert "reserve" not in result.model_dump()
    assert index.asked[0]["top_k"] == fetch_depth(3)


async def test_a_narrowed_result_keeps_the_pool_it_left_out_as_its_reserve() -> None:
    hits = [hit(f"passage {i}", 0.9 - i / 100) for i in range(8)]
    retriever, _, _ = scripted(*hits)
    pool = await retriever.retrieve(retriever.params("q", top_k=4, threshold=0.0))
    chosen = [pool.hits[2], pool.hits[0]]
    narrowed = retriever.narrowed(pool, chosen, 2)
    assert [h.chunk.text for h in narrowed.hits] == ["passage 2", "passage 0"]
    assert [h.chunk.text for h in narrowed.reserve] == [
        "passage 1",
        "passage 3",
        "passage 4",
        "passage 5",
        "passage 6",
    ]


async def test_the_retrieval_debug_line_carries_the_timings_only_when_debug_is_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    index, embedder = filled_index()
    retriever = Retriever(embedder, index, answer_settings())
    params = retriever.params("How do I install Gazebo Harmonic?")
    with caplog.at_level(logging.INFO, logger="lectern.retrieval"):
        await retriever.retrieve(params)
    assert not [r for r in caplog.records if r.getMessage() == "retrieval_performed"]
    with caplog.at_level(logging.DEBUG, logger="lectern.retrieval"):
        await retriever.retrieve(params)
    (line,) = [r for r in caplog.records if r.getMessage() == "retrieval_performed"]
    assert set(line.timings) >= {"embedding_ms", "search_ms", "ranking_ms"}  # type: ignore[attr-defined]


async def test_query_vector_is_the_embedding_as_float32_made_once_per_list() -> None:
    index, embedder = filled_index()
    retriever = Retriever(embedder, index, answer_settings())
    result = await retriever.retrieve(retriever.params("How do I install Gazebo Harmonic?"))
    vector = result.query_vector()
    assert vector is not None
    assert vector.dtype == np.float32
    assert vector.tolist() == result.query_embedding  # the very floats of the list
    assert np.array_equal(vector, embedder.embed_query("How do I install Gazebo Harmonic?"))
    assert not vector.flags.writeable  # shared by the decision and the writer
    assert result.query_vector() is vector
    # a copy keeps it while the embedding is the same list, and makes its own for another one
    assert result.model_copy().query_vector() is vector
    other = result.model_copy(update={"query_embedding": [0.5] * len(vector)})
    assert other.query_vector().tolist() == [0.5] * len(vector)  # type: ignore[union-attr]
    assert result.model_copy(update={"query_embedding": None}).query_vector() is None


class InFileIndex(ScriptedIndex):
    """A scripted index that also knows each file's chunk nearest the query (`nearest_in_files`)."""

    def __init__(self, hits: list[SearchHit], nearest: dict[str, SearchHit], *, fail: bool = False) -> None:
        super().__init__(hits)
        self.nearest = nearest
        self.fail_nearest = fail
        self.nearest_asked: list[tuple[list[str], list[str]]] = []

    def nearest_in_files(
        self, source_paths: list[str], vector: object, exclude: list[str]
    ) -> list[SearchHit]:
        self.nearest_asked.append((list(source_paths), list(exclude)))
        if self.fail_nearest:
            raise RuntimeError("snapshot gone")
        return [self.nearest[p] for p in source_paths if p in self.nearest]


def in_file(
    nearest: dict[str, SearchHit], *, fail: bool = False, paths: tuple[str, ...] = ("a.md", "b.md")
) -> tuple[Retriever, InFileIndex]:
    hits = [hit(f"passage {i}", 0.9 - i / 100, path=paths[i % len(paths)]) for i in range(5)]
    index = InFileIndex(hits, nearest, fail=fail)
    return Retriever(HashEmbedder(), index, answer_settings()), index


async def test_the_first_files_nearest_other_chunk_joins_the_reserve_after_it() -> None:
    extra = hit("the answering sentence", 0.6, path="a.md")
    retriever, index = in_file({"a.md": extra, "b.md": hit("b's", 0.7, path="b.md")})
    result = await retriever.retrieve(retriever.params("q", top_k=3, threshold=0.5))
    assert [h.chunk.text for h in result.hits] == ["passage 0", "passage 1", "passage 2"]
    # the first passage's file only (IN_FILE_FILES), every passage and reserve chunk excluded
    held = [h.chunk.content_hash for h in [*result.hits, *result.reserve[:2]]]
    assert index.nearest_asked == [(["a.md"], held)]
    assert [h.chunk.text for h in result.reserve] == ["passage 3", "passage 4", "the answering sentence"]
    assert [h.rank for h in result.reserve] == [4, 5, 6]
    # the passages, and so every figure the decision reads, are as without it
    assert result.average_score == pytest.approx(0.89)


async def test_a_nearest_chunk_under_the_threshold_stays_out() -> None:
    retriever, _ = in_file({"a.md": hit("far off", 0.4, path="a.md")})
    result = await retriever.retrieve(retriever.params("q", top_k=3, threshold=0.5))
    assert [h.chunk.text for h in result.reserve] == ["passage 3", "passage 4"]


async def test_no_lookup_for_a_filtered_search_and_a_failing_one_changes_nothing() -> None:
    retriever, index = in_file({"a.md": hit("extra", 0.8, path="a.md")})
    filtered = SearchFilters(equals={"module": "m1"})
    result = await retriever.retrieve(retriever.params("q", top_k=3, threshold=0.5, filters=filtered))
    assert index.nearest_asked == []
    assert [h.chunk.text for h in result.reserve] == ["passage 3", "passage 4"]
    failing, _ = in_file({"a.md": hit("extra", 0.8, path="a.md")}, fail=True)
    result = await failing.retrieve(failing.params("q", top_k=3, threshold=0.5))
    assert [h.chunk.text for h in result.reserve] == ["passage 3", "passage 4"]


async def test_an_index_without_the_lookup_keeps_the_plain_reserve() -> None:
    retriever, _, _ = scripted(*[hit(f"passage {i}", 0.9 - i / 100) for i in range(5)])
    result = await retriever.retrieve(retriever.params("q", top_k=3, threshold=0.5))
    assert [h.chunk.text for h in result.reserve] == ["passage 3", "passage 4"]


async def test_a_part_asked_for_by_ordinal_is_embedded_in_the_documents_form() -> None:
    retriever, index, embedder = scripted(hit("Day 5: Review", 0.9))
    result = await retriever.retrieve(retriever.params("What happens on the fifth day of the first week?"))
    # the meaning is searched as the headings number the parts; the keyword side keeps the words asked
    vector = result.query_vector()
    assert vector is not None
    assert np.array_equal(vector, embedder.embed_query("What happens on the day 5 of the week 1?"))
    assert index.asked[0]["text"] == "What happens on the fifth day of the first week?"
    assert result.query == "What happens on the fifth day of the first week?"
