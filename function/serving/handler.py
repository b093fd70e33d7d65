"""The RunFunction handler: a call answered on a worker thread, never with a gRPC error."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc

from function.serving.answers import Answers
from function.serving.request import Received, receive


def run_function(answers: Answers, worker: ThreadPoolExecutor) -> Any:
    """A RunFunction handler that answers with a Fatal result where gRPC would fail the call.

    Calls run on the `worker` threads, off the event loop (server.Options says why).
    """

    async def run(received: Received, _context: grpc.aio.ServicerContext) -> bytes:
        return await asyncio.get_running_loop().run_in_executor(worker, answers.answer, received)

    return grpc.unary_unary_rpc_method_handler(
        run,
        # Decoded on the worker, and only when the answer is not kept.
        request_deserializer=receive,
        # The answer is serialised already (it may come from the cache).
        response_serializer=lambda data: data,
    )
