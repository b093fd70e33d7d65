"""The RunFunction handler: a call answered on the event loop, never with a gRPC error."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc

from function.serving.answers import Answers
from function.serving.request import Received, receive


def run_function(answers: Answers, worker: ThreadPoolExecutor, draining: asyncio.Event) -> Any:
    """A RunFunction handler that answers with a Fatal result where gRPC would fail the call.

    A call is answered on the event loop, as the SDK's own runner answers it: the
    work is CPU-bound Python, which a thread of its own would only make wait for
    the GIL and for two thread switches a call. Once `draining` is set (SIGTERM),
    calls are answered in turn on the `worker`, so that the loop takes in every call
    already sent before gRPC stops: it cancels those it has not taken in.
    """

    async def run(received: Received, _context: grpc.aio.ServicerContext) -> bytes:
        if draining.is_set():
            return await asyncio.get_running_loop().run_in_executor(
                worker, answers.answer, received
            )
        return answers.answer(received)

    return grpc.unary_unary_rpc_method_handler(
        run,
        # Decoded by `answers`, and only when the answer is not kept.
        request_deserializer=receive,
        # The answer is serialised already (it may come from the cache).
        response_serializer=lambda data: data,
    )
