"""The gRPC boundary: runs the stages and turns every failure into a Fatal result."""

from __future__ import annotations

from typing import Any

import grpc
from crossplane.function import logging, response
from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from crossplane.function.proto.v1 import run_function_pb2_grpc as grpcv1

from function import errors, parse
from function.models import input as fn_input

INTERNAL_ERROR = (
    "cannot compose resources: internal error in function-asya (see the function's logs)"
)


class FunctionRunner(grpcv1.FunctionRunnerServiceServicer):
    """Resolves an AsyncActor's flavors, renders its resources, and reports its phase."""

    def __init__(self) -> None:
        """Create a runner; it keeps no state between calls."""
        self.log = logging.get_logger()

    async def RunFunction(  # noqa: N802  # gRPC requires this name.
        self, req: fnv1.RunFunctionRequest, _context: grpc.aio.ServicerContext | None = None
    ) -> fnv1.RunFunctionResponse:
        """Run the function once; never raises, never returns a gRPC error."""
        try:
            return run(req)
        except errors.FunctionError as exc:
            return fatal(req, str(exc))
        except Exception:
            self.log.exception("Unexpected error while running the function")
            return fatal(req, INTERNAL_ERROR)


def run(req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
    """Run the stages: request → parse → (flavors → render → status) → response.

    Raises:
        FunctionError: for any input the composition cannot proceed with.
    """
    settings = fn_input.parse(parse.step_input(req))
    _xr: dict[str, Any] = parse.observed_composite(req)
    # The response is built only once every stage has succeeded, so an error
    # can never leave a half-written desired state behind.
    return response.to(req, ttl=settings.ttl_delta())


def fatal(req: fnv1.RunFunctionRequest, message: str) -> fnv1.RunFunctionResponse:
    """Return a response that carries only a Fatal result and what earlier steps desired.

    Crossplane applies nothing and deletes nothing after a Fatal result, so the
    user's existing resources stay exactly as they are.
    """
    rsp = fnv1.RunFunctionResponse(meta=fnv1.ResponseMeta(tag=req.meta.tag))
    rsp.desired.CopyFrom(req.desired)
    rsp.context.CopyFrom(req.context)
    rsp.results.append(
        fnv1.Result(
            severity=fnv1.SEVERITY_FATAL,
            message=message,
            target=fnv1.TARGET_COMPOSITE,
        )
    )
    return rsp
