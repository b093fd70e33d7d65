"""The response cache: an answer for content seen before is the earlier answer with this tag."""

from __future__ import annotations

import asyncio
import tracemalloc
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from crossplane.function.proto.v1 import run_function_pb2 as fnv1

from function import cache
from function import pipeline as fn
from function.serving import answers as serving
from function.serving import handler, question
from tests import support

MIB = 1024 * 1024


def answers(size: int = 64 * MIB) -> serving.Answers:
    return serving.Answers(fn.FunctionRunner(), 4 * MIB, size)


def flavored(tag: str, replicas: int = 2, **meta: Any) -> fnv1.RunFunctionRequest:
    return support.flavored_request(
        {"replicas": replicas, "env": [{"name": "A"}]}, meta=fnv1.RequestMeta(tag=tag, **meta)
    )


REQUESTS = [
    flavored("one"),
    flavored("two", replicas=3),
    support.request(support.MINIMAL_XR, meta=fnv1.RequestMeta(tag="asks")),  # requirements only
    support.request(support.MINIMAL_XR | {"spec": {"actor": "Bad"}}),  # a Fatal
]


def test_every_answer_is_the_same_bytes_with_the_cache_on_off_and_warm() -> None:
    warm, cold, off = answers(), answers(), answers(0)
    for req in REQUESTS:
        warm.answer(req)
    for req in REQUESTS:
        assert warm.answer(req) == cold.answer(req) == off.answer(req)
    assert warm.kept.hits == len(REQUESTS)
    assert len(off.kept) == 0


def test_the_same_content_with_another_tag_is_a_hit_that_carries_the_new_tag() -> None:
    served = answers()
    first = fnv1.RunFunctionResponse.FromString(served.answer(flavored("first")))
    second = fnv1.RunFunctionResponse.FromString(served.answer(flavored("second")))
    assert (served.kept.hits, served.kept.misses) == (1, 1)
    assert (first.meta.tag, second.meta.tag) == ("first", "second")
    assert second.meta.ttl.seconds == 60
    second.meta.tag = "first"
    assert second == first


def test_the_served_handler_answers_from_the_cache() -> None:
    served = answers()
    run = handler.run_function(served, workers=1)

    async def call_twice() -> list[bytes]:
        return [await run.unary_unary(flavored(tag), None) for tag in ("first", "second")]

    first, second = (fnv1.RunFunctionResponse.FromString(b) for b in asyncio.run(call_twice()))
    assert (served.kept.hits, served.kept.misses) == (1, 1)
    assert len(served.kept) == 1
    assert second.meta.tag == "second"
    second.meta.tag = "first"
    assert second == first


def test_one_tag_with_other_required_resources_is_another_question() -> None:
    # Crossplane keeps one tag for every call of a step's requirements loop.
    served = answers()
    asking = flavored("loop")
    del asking.required_resources["flavor-shape"]
    asked = fnv1.RunFunctionResponse.FromString(served.answer(asking))
    composed = fnv1.RunFunctionResponse.FromString(served.answer(flavored("loop")))
    assert served.kept.misses == 2
    assert len(asked.desired.resources) == 0
    assert "deployment" in composed.desired.resources


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(
            lambda r: r.observed.resources["sqs-queue"].resource.update({"x": 1}), id="observed"
        ),
        pytest.param(lambda r: r.input.update({"ttl": "30s"}), id="input"),
        pytest.param(lambda r: r.context.update({"k": "v"}), id="context"),
        pytest.param(lambda r: r.desired.resources["e"].resource.update({"k": 1}), id="desired"),
        pytest.param(
            lambda r: r.meta.capabilities.append(fnv1.CAPABILITY_REQUIRED_RESOURCES),
            id="capabilities",
        ),
        pytest.param(lambda r: r.extra_resources["x"].SetInParent(), id="extra resources"),
    ],
)
def test_everything_an_answer_depends_on_is_in_the_key(change: Any) -> None:
    one, other = flavored("t"), flavored("t")
    change(other)
    assert question.key(one) != question.key(other)


def test_map_order_does_not_change_the_key() -> None:
    # Crossplane's Go marshaller writes Struct entries in random order.
    one, other = flavored("t"), flavored("t")
    one.input.update({"a": 1, "b": 2})
    other.input.update({"b": 2, "a": 1})
    assert question.key(one) == question.key(other)


def test_the_cache_is_bounded_by_bytes_least_recently_used_first_out() -> None:
    kept = serving.Answers(fn.FunctionRunner(), 4 * MIB, 3 * (100 + question.KEY_BYTES)).kept
    for key in (b"a", b"b", b"c"):
        kept.put(key, b"x" * 100)
    assert kept.get(b"a") is not None  # a is now the most recent
    kept.put(b"d", b"x" * 100)
    assert kept.get(b"b") is None
    assert kept.get(b"a") is not None
    assert kept.size <= kept.budget
    kept.put(b"huge", b"x" * kept.budget)  # larger than the budget: never kept
    assert kept.get(b"huge") is None
    assert len(kept) == 3


def test_a_cache_of_budget_zero_keeps_nothing() -> None:
    kept: cache.ContentCache[str] = cache.ContentCache(0)
    kept.put(b"k", "v")
    assert kept.get(b"k") is None
    assert len(kept) == 0


def test_the_key_leaves_the_request_as_it_was() -> None:
    req = flavored("keep")
    question.key(req)
    assert req.meta.tag == "keep"


def test_kept_answers_are_compressed_and_come_back_whole_from_any_thread() -> None:
    compressor = serving.Compressor()
    answer = fn.FunctionRunner().answer(flavored("z")).message().SerializeToString() * 4
    packed = compressor.compress(answer)
    assert len(packed) < len(answer) / 2

    def round_trips(seed: int) -> bool:
        data = answer + bytes([seed]) * seed
        return all(compressor.decompress(compressor.compress(data)) == data for _ in range(50))

    # Each thread needs its own zstd contexts: shared ones would corrupt answers.
    with ThreadPoolExecutor(max_workers=4) as pool:
        assert all(pool.map(round_trips, range(8)))
    assert compressor.decompress(packed) == answer


def test_a_kept_answer_takes_the_memory_the_cache_counts_for_it() -> None:
    # zstandard returns its output in a buffer sized for the worst case (larger than
    # the input); kept as is, a fleet's answers would take 4x the cache's budget.
    compressor = serving.Compressor()
    answer = fn.FunctionRunner().answer(flavored("size")).message().SerializeToString() * 8
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        kept = [compressor.compress(answer + bytes([n])) for n in range(20)]
        used = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert sum(map(len, kept)) < len(answer) * 20 / 4
    assert used < 2 * sum(map(len, kept))
