"""Answers to RunFunction requests, as bytes: from the response cache when the content was seen.

Crossplane calls the function for every actor at least once a minute, and almost
every call carries what the previous one did: such a call is answered with the
earlier answer's bytes and its own tag.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Callable
from typing import Protocol

import zstandard
from crossplane.function import logging
from crossplane.function.proto.v1 import run_function_pb2 as fnv1

from function import cache, errors, respond
from function.codec import response
from function.serving import question
from function.serving.request import Received, Undecodable, decode

MIB = 1024 * 1024
# Room kept under the send limit for the tag spliced in front of a kept body.
TAG_ROOM = 1024
CACHE_LOG_EVERY = 1000
# The response cache's default budget (MiB); `serve --cache-size` sets it. Both answers
# of a reconcile are kept, about 9 KB an actor compressed: a fleet of about 14,000 actors.
CACHE_MB = 128


class Function(Protocol):
    """A function that answers one request synchronously and never raises."""

    def answer(self, req: fnv1.RunFunctionRequest) -> response.Answer:
        """Answer one request."""


def untagged(answer: response.Answer, max_bytes: int) -> bytes:
    """A response's bytes without its tag; one past the size limit becomes a Fatal result.

    The tag is spliced back in by `tagged`, so the bytes can answer any request of
    the same content.
    """
    answer.response.meta.tag = ""
    data = answer.serialise()
    if len(data) + TAG_ROOM <= max_bytes:
        return data
    # Checked here, where the bytes exist anyway, so it costs a call nothing.
    too_large = errors.InputError(
        f"cannot compose resources: the response would be {len(data) / MIB:.1f} MiB, "
        f"more than the {max_bytes / MIB:g} MiB gRPC message limit "
        "(--max-send-message-size); the actor's spec and flavors are too large"
    )
    refusal: bytes = respond.fatal(fnv1.RunFunctionRequest(), too_large).SerializeToString()
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


class Compressor:
    """Compresses kept answers (zstd, its fastest level), so that a fleet's answers fit the budget.

    zstd contexts must not be shared between threads, so each thread gets its own.
    """

    def __init__(self) -> None:
        """Create no context yet: each thread makes its own on first use."""
        self._local = threading.local()

    def _contexts(self) -> tuple[zstandard.ZstdCompressor, zstandard.ZstdDecompressor]:
        contexts: tuple[zstandard.ZstdCompressor, zstandard.ZstdDecompressor] | None = getattr(
            self._local, "contexts", None
        )
        if contexts is None:
            contexts = (zstandard.ZstdCompressor(level=1), zstandard.ZstdDecompressor())
            self._local.contexts = contexts
        return contexts

    def compress(self, data: bytes) -> bytes:
        """Compress some bytes, into an object of their own size."""
        # zstandard leaves its output in a buffer sized for the worst case (larger
        # than the input); a copy frees it, or each kept answer would hold more.
        return bytes(memoryview(self._contexts()[0].compress(data)))

    def decompress(self, data: bytes) -> bytes:
        """The bytes `compress` was given."""
        return self._contexts()[1].decompress(data)


Job = Callable[[], None]


def at_once(job: Job) -> None:
    """Run a job now: the default for work that need not delay an answer."""
    job()


class Answers:
    """Answers RunFunction requests, keeping each answer for the next request of the same content.

    What need not delay an answer (compressing and keeping it, the pipeline's log
    line) is handed to `after`; the server runs it on its event loop once the call has
    handed its answer to gRPC, which sends it from threads of its own. Until it has
    run, a call of the same content is a miss, answered alike.
    """

    def __init__(
        self,
        function: Function,
        max_response_bytes: int,
        cache_bytes: int,
        after: Callable[[Job], object] = at_once,
    ) -> None:
        """Answer with `function`, keeping answers compressed within `cache_bytes`."""
        self.function = function
        self.max_response_bytes = max_response_bytes
        self.after = after
        # Bounded by bytes, not by count, so a fleet of large actors cannot pass it.
        self.kept: cache.ContentCache[bytes] = cache.ContentCache(
            cache_bytes, sizeof=lambda body: len(body) + question.KEY_BYTES
        )
        self.compressor = Compressor()
        self.log = logging.get_logger()

    def answer(self, received: Received) -> bytes:
        """The serialised response for one request."""
        tag = received.tag
        key = question.of_tag(received) if self.kept.enabled else None
        if key is not None and (kept := self._kept(key)) is not None:
            return tagged(tag, kept)
        request = decode(received.data)
        if isinstance(request, Undecodable):
            refusal = respond.fatal(fnv1.RunFunctionRequest(meta=request.meta), request.error)
            data: bytes = refusal.SerializeToString()
            return data
        if key is None and self.kept.enabled:
            key = question.of_content(request)
            if (kept := self._kept(key)) is not None:
                return tagged(tag, kept)
        answer = self.function.answer(request)
        body = untagged(answer, self.max_response_bytes)
        jobs = [*answer.after_sending]
        if key is not None:
            jobs.append(functools.partial(self._keep, key, body))
        if jobs:
            # RuntimeError: the loop is closed, the server stopping. The answer
            # still goes; it is not kept and its line is not logged.
            with contextlib.suppress(RuntimeError):
                self.after(functools.partial(self._after_sending, jobs))
        return tagged(tag, body)

    def _keep(self, key: bytes, body: bytes) -> None:
        self.kept.put(key, self.compressor.compress(body))
        self._count()

    def _after_sending(self, jobs: list[Job]) -> None:
        """Run each job; one that fails is logged, never raised into the server."""
        for job in jobs:
            try:
                job()
            except Exception as exc:  # noqa: BLE001  # the answer is sent already
                self.log.error(  # noqa: TRY400  # no traceback: frames hold user data
                    "Unexpected error after answering", error=type(exc).__qualname__
                )

    def _kept(self, key: bytes) -> bytes | None:
        kept = self.kept.get(key)
        if kept is None:
            return None
        self._count()
        return self.compressor.decompress(kept)

    def _count(self) -> None:
        if (self.kept.hits + self.kept.misses) % CACHE_LOG_EVERY == 0:
            self.log.debug("Response cache", **self.counts())

    def counts(self) -> dict[str, int]:
        """The response cache's hits and misses so far, and the bytes and answers it holds."""
        kept = self.kept
        return {"hits": kept.hits, "misses": kept.misses, "bytes": kept.size, "answers": len(kept)}

    def report(self) -> None:
        """Log the response cache's counts at info (`serve` does on SIGUSR1)."""
        self.log.info("Response cache", **self.counts())
