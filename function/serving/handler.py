"""The RunFunction handler: a call answered on a worker thread, never with a gRPC error."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc
from crossplane.function.proto.v1 import run_function_pb2 as fnv1

from function import pipeline
from function.serving.answers import Answers
from function.serving.request import Undecodable, decode


def run_function(answers: Answers, workers: int) -> Any:
    """A RunFunction handler that answers with a Fatal result where gRPC would fail the call.

    Calls run on `workers` threads off the event loop (server.Options says why).
    """
    worker = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="run-function")

    async def run(
        request: fnv1.RunFunctionRequest | Undecodable, _context: grpc.aio.ServicerContext
    ) -> bytes:
        if isinstance(request, Undecodable):
            refusal = pipeline.fatal(fnv1.RunFunctionRequest(meta=request.meta), request.error)
            data: bytes = refusal.SerializeToString()
            return data
        return await asyncio.get_running_loop().run_in_executor(worker, answers.answer, request)

    return grpc.unary_unary_rpc_method_handler(
        run,
        request_deserializer=decode,
        # The answer is serialised already (it may come from the cache).
        response_serializer=lambda data: data,
    )
