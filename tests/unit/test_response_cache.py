"""The response cache: an answer for content seen before is the earlier answer with this tag."""

from __future__ import annotations

import asyncio
import copy
import threading
import tracemalloc
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc
import pytest
import structlog
from crossplane.function import logging
from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from crossplane.function.proto.v1 import run_function_pb2_grpc as grpcv1
from google.protobuf import json_format
from hypothesis import given, settings
from hypothesis import strategies as st

from function import cache
from function import runner as fn
from function.codec import response
from function.serving import answers as serving
from function.serving import handler, question, request, server
from tests import support
from tests.unit.test_structs import json_data

MIB = 1024 * 1024


def answers(size: int = 64 * MIB) -> serving.Answers:
    return serving.Answers(fn.FunctionRunner(), 4 * MIB, size)


def tagged(req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionRequest:
    """The request with Crossplane's tag."""
    req.meta.tag = support.crossplane_tag(req)
    return req


def received(req: fnv1.RunFunctionRequest) -> request.Received:
    return request.receive(req.SerializeToString())


def ask(served: serving.Answers, req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
    return fnv1.RunFunctionResponse.FromString(served.answer(received(req)))


def flavored(replicas: int = 2, **meta: Any) -> fnv1.RunFunctionRequest:
    return support.flavored_request(
        {"replicas": replicas, "env": [{"name": "A"}]}, meta=fnv1.RequestMeta(**meta)
    )


REQUESTS = [
    tagged(flavored()),
    tagged(flavored(replicas=3)),
    flavored(replicas=4),  # untagged
    tagged(support.request(support.MINIMAL_XR)),  # requirements only
    tagged(support.request(support.MINIMAL_XR | {"spec": {"actor": "Bad"}})),  # a Fatal
]


def test_every_answer_is_the_same_bytes_with_the_cache_on_off_and_warm() -> None:
    warm, cold, off = answers(), answers(), answers(0)
    for req in REQUESTS:
        warm.answer(received(req))
    for req in REQUESTS:
        assert warm.answer(received(req)) == cold.answer(received(req)) == off.answer(received(req))
    assert warm.kept.hits == len(REQUESTS)
    assert len(off.kept) == 0


def test_a_tagged_request_seen_before_is_answered_without_decoding_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    served = answers()
    first = ask(served, tagged(flavored()))

    def undecodable(_data: bytes) -> None:
        raise AssertionError("a kept answer was found by decoding the whole request")

    monkeypatch.setattr(serving, "decode", undecodable)
    assert ask(served, tagged(flavored())) == first
    assert (served.kept.hits, served.kept.misses) == (1, 1)


def test_an_untagged_request_falls_back_to_a_digest_of_its_content() -> None:
    served = answers()
    first = ask(served, flavored())
    second = ask(served, flavored())
    other = ask(served, flavored(replicas=5))
    assert (served.kept.hits, served.kept.misses) == (1, 2)
    assert second == first
    assert other != first
    assert served.answer(received(flavored(tag=""))) == served.answer(received(flavored()))


def test_a_hit_carries_its_own_requests_tag() -> None:
    served = answers()
    one = tagged(flavored())
    assert ask(served, one).meta.tag == one.meta.tag
    untagged_first, untagged_again = flavored(), flavored()
    ask(served, untagged_first)
    again = ask(served, untagged_again)
    assert again.meta.tag == ""
    assert again.meta.ttl.seconds == 60


def test_the_served_handler_answers_from_the_cache() -> None:
    worker = ThreadPoolExecutor(max_workers=1)
    req = tagged(flavored())

    async def call_twice() -> tuple[serving.Answers, list[bytes]]:
        # As server.build wires it: what follows an answer runs on the loop.
        loop = asyncio.get_running_loop()
        served = serving.Answers(
            fn.FunctionRunner(), 4 * MIB, 64 * MIB, after=loop.call_soon_threadsafe
        )
        run = handler.run_function(served, worker, asyncio.Event())
        first = await run.unary_unary(received(req), None)
        await asyncio.sleep(0)  # the loop's turn: the answer is kept
        return served, [first, await run.unary_unary(received(req), None)]

    served, answered = asyncio.run(call_twice())
    first, second = (fnv1.RunFunctionResponse.FromString(b) for b in answered)
    assert (served.kept.hits, served.kept.misses) == (1, 1)
    assert len(served.kept) == 1
    assert second == first


def test_calls_are_answered_on_the_loop_and_on_the_worker_once_the_server_drains() -> None:
    # After SIGTERM the loop must take in every call already sent (gRPC cancels
    # those it has not taken in when it stops): it hands their work to the worker.
    worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="run-function")
    threads: list[str] = []

    class Recording:
        def answer(self, req: fnv1.RunFunctionRequest) -> response.Answer:
            threads.append(threading.current_thread().name)
            return fn.FunctionRunner().answer(req)

    async def call(draining: bool) -> bytes:
        drain = asyncio.Event()
        if draining:
            drain.set()
        run = handler.run_function(serving.Answers(Recording(), 4 * MIB, 0), worker, drain)
        answered: bytes = await run.unary_unary(received(tagged(flavored())), None)
        return answered

    on_loop, on_worker = asyncio.run(call(False)), asyncio.run(call(True))
    assert threads[0] == threading.current_thread().name
    assert threads[1].startswith("run-function")
    assert on_loop == on_worker


def test_an_answer_is_kept_and_logged_only_after_it_is_returned(
    capsys: pytest.CaptureFixture[str],
) -> None:
    logging.configure(level=logging.Level.INFO)
    later: list[serving.Job] = []
    served = serving.Answers(fn.FunctionRunner(), 4 * MIB, 64 * MIB, after=later.append)
    req = tagged(flavored())
    first = served.answer(received(req))
    assert len(served.kept) == 0
    assert "Flavors applied" not in capsys.readouterr().out
    [job] = later
    job()
    assert len(served.kept) == 1
    assert capsys.readouterr().out.count("Flavors applied") == 1
    assert served.answer(received(req)) == first
    assert (served.kept.hits, len(later)) == (1, 1)  # a hit leaves nothing to do after sending


def test_a_call_answered_while_the_server_stops_is_still_answered() -> None:
    # As server.build wires it, on a loop that has closed: the server stopping.
    closed = asyncio.new_event_loop()
    closed.close()
    served = serving.Answers(
        fn.FunctionRunner(), 4 * MIB, 64 * MIB, after=closed.call_soon_threadsafe
    )
    req = tagged(flavored())
    assert ask(served, req) == ask(serving.Answers(fn.FunctionRunner(), 4 * MIB, 0), req)
    assert len(served.kept) == 0


def test_a_job_that_fails_after_answering_is_logged_not_raised(
    capsys: pytest.CaptureFixture[str],
) -> None:
    logging.configure(level=logging.Level.INFO)

    class Failing:
        def answer(self, req: fnv1.RunFunctionRequest) -> response.Answer:
            answer = fn.FunctionRunner().answer(req)
            answer.after_sending = (lambda: {}["secret-value"],)
            return answer

    served = serving.Answers(Failing(), 4 * MIB, 64 * MIB)
    assert served.answer(received(tagged(flavored())))
    logged = capsys.readouterr().out
    assert "Unexpected error after answering" in logged
    assert "KeyError" in logged
    assert "secret-value" not in logged
    assert len(served.kept) == 1  # the jobs after the failing one still ran


def test_one_tag_with_other_required_resources_is_another_question() -> None:
    # Crossplane keeps one tag for every call of a step's requirements loop.
    served = answers()
    asking = tagged(flavored())
    composed_request = fnv1.RunFunctionRequest()
    composed_request.CopyFrom(asking)
    del asking.required_resources["flavor-shape"]
    assert asking.meta.tag == composed_request.meta.tag
    asked = ask(served, asking)
    composed = ask(served, composed_request)
    assert served.kept.misses == 2
    assert len(asked.desired.resources) == 0
    assert "deployment" in composed.desired.resources


def test_one_tag_with_another_context_is_another_question() -> None:
    # Each call of the loop gets the context the previous call answered with.
    served = answers()
    first = tagged(flavored())
    second = fnv1.RunFunctionRequest()
    second.CopyFrom(first)
    second.context.update({"apiextensions.crossplane.io/environment": {"zone": "b"}})
    assert first.meta.tag == second.meta.tag
    ask(served, first)
    assert ask(served, second).context == ask(answers(0), second).context
    assert served.kept.misses == 2


def _with_changed_flavor(r: fnv1.RunFunctionRequest) -> None:
    r.required_resources["flavor-shape"].items[0].resource["data"].update({"replicas": 7})


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(_with_changed_flavor, id="a required resource"),
        pytest.param(lambda r: r.extra_resources["x"].SetInParent(), id="extra resources"),
        pytest.param(
            lambda r: r.credentials["c"].credential_data.data.update({"k": b"v"}), id="credentials"
        ),
        pytest.param(lambda r: r.context.update({"k": "v"}), id="context"),
        pytest.param(lambda r: r.input.update({"ttl": "30s"}), id="input"),
        pytest.param(
            lambda r: r.observed.resources["sqs-queue"].resource.update({"x": 1}), id="observed"
        ),
        pytest.param(lambda r: r.desired.resources["e"].resource.update({"k": 1}), id="desired"),
        pytest.param(
            lambda r: r.meta.capabilities.append(fnv1.CAPABILITY_REQUIRED_RESOURCES),
            id="capabilities",
        ),
    ],
)
def test_a_request_differing_in_anything_an_answer_depends_on_is_answered_anew(
    change: Any, codec: str
) -> None:
    served, uncached = answers(), answers(0)
    one = tagged(flavored())
    other = flavored()
    change(other)
    tagged(other)
    ask(served, one)
    assert ask(served, other) == ask(uncached, other)
    assert (served.kept.hits, served.kept.misses) == (0, 2)
    assert question.of_tag(received(one)) != question.of_tag(received(other))
    for req in (one, other):
        req.meta.tag = ""
    assert question.of_content(one) != question.of_content(other)


def test_the_wire_order_of_map_entries_does_not_change_the_key(codec: str) -> None:
    # protobuf writes a map's entries last first; deterministically, sorted: two orders
    # of the same content, as Crossplane's Go marshaller sends them from call to call.
    req = tagged(flavored())
    req.context.update({"a": 1, "b": {"c": [1, {"d": 2, "e": 3}]}, "f": "g"})
    req.required_resources["flavor-shape"].items[0].connection_details.update(
        {"x": b"1", "y": b"2"}
    )
    req.extra_resources["x"].items.add().resource.update({"k": 1, "l": 2, "m": {"n": 3, "o": 4}})
    as_written, as_sorted = req.SerializeToString(), req.SerializeToString(deterministic=True)
    assert as_written != as_sorted
    key = question.of_tag(request.receive(as_written))
    assert key is not None
    assert key == question.of_tag(request.receive(as_sorted))


def test_the_key_of_a_request_too_broken_to_read_is_none(codec: str) -> None:
    data = tagged(flavored()).SerializeToString()
    assert question.of_tag(request.receive(data + b"\x42\x05ab")) is None  # cut short


def test_map_order_does_not_change_the_keys() -> None:
    # Crossplane's Go marshaller writes Struct entries in random order.
    one, other = flavored(tag="t"), flavored(tag="t")
    one.input.update({"a": 1, "b": 2})
    other.input.update({"b": 2, "a": 1})
    one.required_resources["flavor-shape"].items[0].resource["data"].update({"x": 1, "y": 2})
    other.required_resources["flavor-shape"].items[0].resource["data"].update({"y": 2, "x": 1})
    assert question.of_tag(received(one)) == question.of_tag(received(other))
    assert question.of_content(one) == question.of_content(other)


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
    req = flavored(tag="keep")
    question.of_content(req)
    assert req.meta.tag == "keep"


def test_an_undecodable_request_is_a_fatal_never_kept() -> None:
    served = answers()
    data = tagged(flavored()).SerializeToString() + b"\x0f"  # a field of no wire type
    rsp = fnv1.RunFunctionResponse.FromString(served.answer(request.receive(data)))
    assert support.fatal_messages(rsp)[0].startswith("cannot read the request")
    assert len(served.kept) == 0


def test_kept_answers_are_compressed_and_come_back_whole_from_any_thread() -> None:
    compressor = serving.Compressor()
    answer = fn.FunctionRunner().answer(flavored()).message().SerializeToString() * 4
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
    answer = fn.FunctionRunner().answer(flavored()).message().SerializeToString() * 8
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        kept = [compressor.compress(answer + bytes([n])) for n in range(20)]
        used = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert sum(map(len, kept)) < len(answer) * 20 / 4
    assert used < 2 * sum(map(len, kept))


def test_the_server_answers_before_the_work_that_follows_an_answer() -> None:
    # The server's own wiring (server.build): what follows an answer (keeping it,
    # its log line) runs on the event loop once the answer is handed to gRPC, which
    # sends it from threads of its own. A job that holds the loop until the answer
    # has arrived shows which comes first: run before the answer left, it would
    # keep it from ever arriving.
    arrived = threading.Event()
    ran: list[bool] = []

    class Waiting:
        def answer(self, req: fnv1.RunFunctionRequest) -> response.Answer:
            answer = fn.FunctionRunner().answer(req)
            answer.after_sending = (lambda: ran.append(arrived.wait(timeout=10)),)
            return answer

    def ask_from_another_thread(port: int) -> fnv1.RunFunctionResponse:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = grpcv1.FunctionRunnerServiceStub(channel)
            rsp: fnv1.RunFunctionResponse = stub.RunFunction(tagged(flavored()), timeout=5)
        arrived.set()
        return rsp

    async def call() -> fnv1.RunFunctionResponse:
        built, port, _ = server.build(
            Waiting(), server.Options(address="127.0.0.1:0", insecure=True, grace_seconds=0)
        )
        await built.start()
        try:
            return await asyncio.to_thread(ask_from_another_thread, port)
        finally:
            await built.stop(grace=None)

    rsp = asyncio.run(call())
    assert not support.fatal_messages(rsp)
    assert rsp.desired.resources
    assert ran == [True]  # the job ran, and the answer had arrived before it was done


# No NaN: a Struct holding one never equals itself.
JSON = json_data(keys=3, items=3, leaves=12, nan=False, bound=2**53)


@settings(max_examples=150, deadline=None)
@given(
    st.dictionaries(st.text(max_size=5), JSON, max_size=5),
    st.dictionaries(st.text(max_size=5), JSON, max_size=5),
)
def test_keys_are_equal_exactly_when_what_was_fetched_is(
    one: dict[str, Any], other: dict[str, Any]
) -> None:
    def key(content: dict[str, Any], *, deterministic: bool) -> bytes | None:
        req = tagged(flavored())
        req.context.update(content)
        req.required_resources["flavor-shape"].items.add().resource.update(content)
        return question.of_tag(request.receive(req.SerializeToString(deterministic=deterministic)))

    assert key(one, deterministic=False) == key(one, deterministic=True)
    # Compared as Structs: in Python True == 1, in a Struct a bool is no number.
    same = support.struct(one) == support.struct(other)
    assert (key(one, deterministic=False) == key(other, deterministic=True)) == same


def test_the_default_cache_holds_both_answers_of_a_reconcile_for_a_fleet_of_10000() -> None:
    # Each reconcile is two calls (before and after Crossplane fetches what the first
    # asked for), and both answers are kept: a budget that holds only one of them for
    # every actor evicts each answer before its actor comes round again (least recently
    # used out, in a fleet reconciled in turn), and no call ever hits. An actor without
    # flavors is rendered whole on both calls: the larger pair.
    from bench import request as bench_request

    kept = 0
    for flavored in (True, False):
        second = bench_request.request(1, flavored=flavored)
        first = fnv1.RunFunctionRequest()
        first.CopyFrom(second)
        first.ClearField("required_resources")
        compressor = serving.Compressor()
        pair = 0
        for req in (first, second):
            body = fn.FunctionRunner().answer(req).serialise()
            pair += len(compressor.compress(body)) + question.KEY_BYTES
        kept = max(kept, pair)
    assert 10_000 * kept <= serving.CACHE_MB * MIB


def test_each_answer_computed_is_logged_at_debug_by_actor_and_a_hit_is_not(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # What the fleet-rig bench counts: which actors a flavor edit reached, and that
    # the others were answered from the cache.
    # The SDK's configure keeps an earlier INFO filter when asked for DEBUG: reset first.
    structlog.reset_defaults()
    logging.configure(level=logging.Level.DEBUG)
    try:
        served = serving.Answers(fn.FunctionRunner(), 4 * MIB, 64 * MIB)
        req = tagged(flavored())
        served.answer(received(req))
        served.answer(received(req))
        # An answer that only asks for the flavors (the first call of a reconcile) too.
        xr = copy.deepcopy(support.MINIMAL_XR)
        xr["spec"]["flavors"] = ["gpu"]
        served.answer(received(tagged(support.request(xr, input=support.struct({})))))
        logged = capsys.readouterr().out
    finally:
        logging.configure(level=logging.Level.INFO)
    line, pending = [line for line in logged.splitlines() if "Answer computed" in line]
    assert "echo" in pending
    name = json_format.MessageToDict(req.observed.composite.resource)["metadata"]["name"]
    # The claim's namespace and the XR's name: one actor among every namespace's.
    assert support.log_fields(support.strip_colours(line))["actor"] == f"team/{name}"
