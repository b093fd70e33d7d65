"""What crosses the wire: requests decoded and responses encoded by the function itself.

gRPC would answer a request protobuf cannot decode, or a response past the send
limit, with a status code and no word of the cause; Crossplane would show only
that. Here both become Fatal results that say what is wrong.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol

import grpc
from crossplane.function import logging
from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from google.protobuf import descriptor_pb2, descriptor_pool, message, message_factory

from function import cache, errors
from function import pipeline as fn
from function.codec import response as reply

PROTOBUF_DEPTH_LIMIT = 100
MIB = 1024 * 1024
# Room kept under the send limit for the tag spliced in front of a cached body.
TAG_ROOM = 1024
CACHE_LOG_EVERY = 1000


class Runner(Protocol):
    """A function that answers one request synchronously and never raises."""

    def reply(self, req: fnv1.RunFunctionRequest) -> reply.Reply:
        """Answer one request."""


def _meta_only() -> Any:
    """A message type holding only a request's meta (field 1).

    Everything else in the bytes is kept as unknown fields, which protobuf skips
    without descending into them, so the tag can be read even from a request too
    deeply nested to decode.
    """
    pool = descriptor_pool.Default()
    name = "function_asya/meta_only.proto"
    try:
        pool.FindFileByName(name)
    except KeyError:
        meta = descriptor_pb2.FieldDescriptorProto(
            name="meta",
            number=1,
            label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL,
            type=descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE,
            type_name=f".{fnv1.DESCRIPTOR.package}.RequestMeta",
        )
        pool.Add(
            descriptor_pb2.FileDescriptorProto(
                name=name,
                package="function_asya",
                dependency=[fnv1.DESCRIPTOR.name],
                message_type=[descriptor_pb2.DescriptorProto(name="MetaOnly", field=[meta])],
            )
        )
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("function_asya.MetaOnly"))


MetaOnly = _meta_only()


@dataclass(frozen=True)
class Undecodable:
    """A request protobuf could not decode: why, and its meta when that much was readable."""

    error: errors.InputError
    meta: fnv1.RequestMeta


def decode(data: bytes) -> fnv1.RunFunctionRequest | Undecodable:
    """Decode a request, or say why it cannot be decoded."""
    try:
        request: fnv1.RunFunctionRequest = fnv1.RunFunctionRequest.FromString(data)
    except message.DecodeError as exc:
        if "MaxDepth" in str(exc):
            error = errors.InputError(
                "cannot read the request: it nests deeper than protobuf's limit of "
                f"{PROTOBUF_DEPTH_LIMIT} levels (about 30 levels of YAML); a flavor's data "
                "or the actor's spec is nested too deeply"
            )
        else:
            error = errors.InputError(f"cannot read the request: {exc}")
        return Undecodable(error, _meta_of(data))
    return request


def _meta_of(data: bytes) -> fnv1.RequestMeta:
    try:
        meta: fnv1.RequestMeta = MetaOnly.FromString(data).meta
    except message.DecodeError:
        return fnv1.RequestMeta()
    return meta


def untagged(answer: reply.Reply, max_bytes: int) -> bytes:
    """Serialise a response without its tag; one past the size limit becomes a Fatal result.

    The tag is spliced back in by `tagged`, so the bytes can answer any request of
    the same content.
    """
    answer.head.meta.tag = ""
    data = answer.serialise()
    if len(data) + TAG_ROOM <= max_bytes:
        return data
    # Checked here, where the bytes exist anyway, so it costs a call nothing.
    too_large = errors.InputError(
        f"cannot compose resources: the response would be {len(data) / MIB:.1f} MiB, "
        f"more than the {max_bytes / MIB:g} MiB gRPC message limit "
        "(--max-send-message-size); the actor's spec and flavors are too large"
    )
    refusal: bytes = fn.fatal(fnv1.RunFunctionRequest(), too_large).SerializeToString()
    return refusal


def tagged(tag: str, body: bytes) -> bytes:
    """A response's bytes with its request's tag.

    protobuf merges repeated occurrences of a message field, so a `meta` holding only
    the tag, followed by the body (whose `meta` holds the rest), decodes as one meta.
    """
    if not tag:
        return body
    prefix: bytes = fnv1.RunFunctionResponse(meta=fnv1.ResponseMeta(tag=tag)).SerializeToString()
    return prefix + body


def question(request: fnv1.RunFunctionRequest) -> bytes:
    """A digest of everything an answer depends on: the request's content without its tag.

    Deterministic serialisation orders map entries (Crossplane's Go marshaller does
    not), so the same content always gives the same key.
    """
    tag = request.meta.tag
    request.meta.tag = ""
    content: bytes = request.SerializeToString(deterministic=True)
    request.meta.tag = tag
    return cache.digest(content)


class Answers:
    """Answers RunFunction requests, from the response cache when their content was seen."""

    def __init__(
        self, function: Runner, max_response_bytes: int, responses: cache.BytesCache
    ) -> None:
        """Answer with `function`, keeping answers in `responses`."""
        self.function = function
        self.max_response_bytes = max_response_bytes
        self.responses = responses
        self.compressor = cache.Compressor()
        self.log = logging.get_logger()

    def answer(self, request: fnv1.RunFunctionRequest) -> bytes:
        """The serialised response for one request, kept for the next of the same content."""
        data, later = self.respond(request)
        if later is not None:
            later()
        return data

    def respond(self, request: fnv1.RunFunctionRequest) -> tuple[bytes, Callable[[], None] | None]:
        """The serialised response for one request, and the job to run once it is sent.

        The job is the server's to run once the response is on its way: keeping a
        new answer (compressing it is most of that cost) and the function's own
        `after` work (a log line); the caller need not wait for either.
        """
        tag = request.meta.tag
        key = question(request) if self.responses.enabled else None
        if key is not None:
            kept = self.responses.get(key)
            if kept is not None:
                self._count()
                return tagged(tag, self.compressor.decompress(kept)), None
        answer = self.function.reply(request)
        body = untagged(answer, self.max_response_bytes)
        # Keeping first: it is what the next call of the same content needs.
        later: list[Callable[[], object]] = []
        if key is not None:
            later.append(functools.partial(self._keep, key, body))
        later.extend(answer.after)
        return tagged(tag, body), functools.partial(_run_all, later) if later else None

    def _keep(self, key: bytes, body: bytes) -> None:
        # Compressed (about 3.6x for an actor's answer, ~50 us) so that a fleet's
        # answers fit the budget: Crossplane polls every actor in turn, and an
        # LRU smaller than the fleet would never hit.
        self.responses.put(key, self.compressor.compress(body))
        self._count()

    def _count(self) -> None:
        calls = self.responses.hits + self.responses.misses
        if calls % CACHE_LOG_EVERY == 0:
            self.log.debug(
                "Response cache",
                hits=self.responses.hits,
                misses=self.responses.misses,
                bytes=self.responses.bytes,
                answers=len(self.responses),
            )


def _run_all(jobs: list[Callable[[], object]]) -> None:
    for job in jobs:
        job()


def _report_failure(job: Future[None]) -> None:
    if not job.cancelled() and (failure := job.exception()) is not None:
        logging.get_logger().error(
            "Work after an answer failed (keeping it, or its log line)",
            error=type(failure).__qualname__,
            at=fn.where(failure),
        )


def run_function_handler(answers: Answers, workers: int) -> Any:
    """A RunFunction handler that answers with a Fatal result where gRPC would fail the call.

    Calls run on `workers` threads off the event loop (server.Options says why). A
    new answer is kept (and its log line written) by a job queued behind its call,
    so the response is on its way meanwhile; with one worker, the next call waits
    for the job, so it finds the answer kept.
    """
    worker = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="run-function")

    async def run(
        request: fnv1.RunFunctionRequest | Undecodable, _context: grpc.aio.ServicerContext
    ) -> bytes:
        if isinstance(request, Undecodable):
            rsp = fn.fatal(fnv1.RunFunctionRequest(meta=request.meta), request.error)
            data: bytes = rsp.SerializeToString()
            return data
        loop = asyncio.get_running_loop()
        data, later = await loop.run_in_executor(worker, answers.respond, request)
        if later is not None:
            # Straight to the worker, not through the loop: nothing waits for the job
            # (it fills the cache and logs), so its end need not wake the loop.
            worker.submit(later).add_done_callback(_report_failure)
        return data

    return grpc.unary_unary_rpc_method_handler(
        run,
        request_deserializer=decode,
        # The answer is serialised already (it may come from the cache).
        response_serializer=lambda data: data,
    )
