"""Run a Composition's pipeline over gRPC, with Crossplane's requirements loop."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Literal

import grpc
from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from crossplane.function.proto.v1 import run_function_pb2_grpc as grpcv1
from crossplane.function.proto.v1beta1 import run_function_pb2 as fnv1beta1
from crossplane.function.proto.v1beta1 import run_function_pb2_grpc as grpcv1beta1
from google.protobuf import struct_pb2

from function.cli.render.errors import PipelineFatalError, RenderError
from function.cli.render.files import Document
from function.cli.render.supply import bootstrap, credentials, fetch, fetch_schema, to_struct

# Crossplane calls a step at most MaxRequirementsIterations + 1 times.
MAX_REQUIREMENTS_ITERATIONS = 5
# What a request's meta carries: nothing (render v2.0-v2.1), the capabilities
# (v2.2), or the capabilities and core's content tag (v2.3+, the real reconciler).
RequestMeta = Literal["none", "capabilities", "tagged"]
CAPABILITIES = (
    fnv1.CAPABILITY_CAPABILITIES,
    fnv1.CAPABILITY_REQUIRED_RESOURCES,
    fnv1.CAPABILITY_CREDENTIALS,
    fnv1.CAPABILITY_CONDITIONS,
    fnv1.CAPABILITY_REQUIRED_SCHEMAS,
)


@dataclass(frozen=True)
class StepResult:
    """A non-fatal result, with the step that returned it."""

    step: str
    result: fnv1.Result


@dataclass
class Outcome:
    """What the pipeline produced: final desired state, results, conditions, context."""

    desired: fnv1.State
    context: struct_pb2.Struct
    results: list[StepResult] = field(default_factory=list)
    conditions: list[fnv1.Condition] = field(default_factory=list)
    calls: dict[str, int] = field(default_factory=dict)


class Caller:
    """Calls one function's RunFunction over a real channel, falling back to v1beta1."""

    def __init__(self, channel: grpc.aio.Channel, timeout: float | None) -> None:
        """Wrap an open channel."""
        self.v1 = grpcv1.FunctionRunnerServiceStub(channel)
        self.v1beta1 = grpcv1beta1.FunctionRunnerServiceStub(channel)
        self.timeout = timeout

    async def __call__(self, req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
        """Call v1 and, when the server does not implement it, v1beta1."""
        try:
            rsp: fnv1.RunFunctionResponse = await self.v1.RunFunction(
                req, timeout=self.timeout, wait_for_ready=True
            )
        except grpc.aio.AioRpcError as exc:
            if exc.code() != grpc.StatusCode.UNIMPLEMENTED:
                raise
            beta_req = fnv1beta1.RunFunctionRequest.FromString(req.SerializeToString())
            beta_rsp = await self.v1beta1.RunFunction(
                beta_req, timeout=self.timeout, wait_for_ready=True
            )
            rsp = fnv1.RunFunctionResponse.FromString(beta_rsp.SerializeToString())
        if rsp is None:
            # gRPC hands back None when it cannot deserialize the response.
            raise RenderError(
                "cannot decode the function's response (protobuf refuses messages "
                "nested more than 100 levels deep)"
            )
        return rsp


def _requirements(rsp: fnv1.RunFunctionResponse) -> fnv1.Requirements | None:
    return rsp.requirements if rsp.HasField("requirements") else None


async def run_step(
    call: Caller,
    req: fnv1.RunFunctionRequest,
    supplied: list[Document],
    prefetched: dict[str, fnv1.Resources] | None = None,
    crds: list[Document] | None = None,
) -> tuple[fnv1.RunFunctionResponse, int]:
    """Call a step until its requirements stabilise; return its last response and call count.

    `req` arrives with `prefetched` (the step's bootstrap requirements) in it, which
    are put back on every later call, as Crossplane does.

    Raises:
        RenderError: when the requirements never stabilise.
    """
    previous: fnv1.Requirements | None = None
    for calls in range(1, MAX_REQUIREMENTS_ITERATIONS + 2):
        rsp = await call(req)
        if any(r.severity == fnv1.SEVERITY_FATAL for r in rsp.results):
            return rsp, calls
        current = _requirements(rsp)
        if current == previous:
            return rsp, calls
        previous = current
        req.ClearField("required_resources")
        req.ClearField("extra_resources")
        req.ClearField("required_schemas")
        for name, resources in (prefetched or {}).items():
            req.required_resources[name].CopyFrom(resources)
        if current is not None:
            for name, selector in current.resources.items():
                req.required_resources[name].CopyFrom(fetch(selector, supplied))
            for name, selector in current.extra_resources.items():
                req.extra_resources[name].CopyFrom(fetch(selector, supplied))
            for name, schema_selector in current.schemas.items():
                req.required_schemas[name].CopyFrom(fetch_schema(schema_selector, crds or []))
        req.context.CopyFrom(rsp.context)
    raise RenderError(
        "requirements didn't stabilize after the maximum number of iterations "
        f"({MAX_REQUIREMENTS_ITERATIONS})"
    )


async def run(
    composition: Document,
    observed: fnv1.State,
    context: struct_pb2.Struct,
    callers: dict[str, Caller],
    supplied: list[Document],
    required: list[Document] | None = None,
    secrets: list[Document] | None = None,
    crds: list[Document] | None = None,
    meta: RequestMeta = "tagged",
) -> Outcome:
    """Run every pipeline step in order, passing desired state and context along.

    `supplied` answers the functions' requirements; a step's bootstrap requirements
    come from `required` (--required-resources) only, as crossplane render does.
    `meta` is what the requests' meta carries, per the Crossplane release rendered.

    Raises:
        PipelineFatalError: a step returned a fatal result.
        RenderError: naming the step, for an unknown function, a gRPC failure, or
            requirements that never stabilise.
    """
    outcome = Outcome(desired=fnv1.State(), context=context)
    for step in composition.body["spec"]["pipeline"]:
        name = str(step.get("step", ""))
        function = str((step.get("functionRef") or {}).get("name", ""))
        if function not in callers:
            raise RenderError(
                f'unknown Function "{function}" - does it exist in your Functions file?'
            )
        req = fnv1.RunFunctionRequest(observed=observed, desired=outcome.desired)
        req.context.CopyFrom(outcome.context)
        if step.get("input") is not None:
            req.input.CopyFrom(to_struct(step["input"]))
        try:
            for key, value in credentials(step, secrets or []).items():
                req.credentials[key].CopyFrom(value)
        except RenderError as exc:
            raise RenderError(f'cannot run pipeline step "{name}": {exc}') from None
        try:
            prefetched = bootstrap(step, supplied if required is None else required)
            for key, resources in prefetched.items():
                req.required_resources[key].CopyFrom(resources)
            _set_meta(req, meta)
            rsp, calls = await run_step(callers[function], req, supplied, prefetched, crds)
        except grpc.aio.AioRpcError as exc:
            raise RenderError(
                f'cannot run pipeline step "{name}": {exc.code().name}: {exc.details()}'
            ) from None
        except RenderError as exc:
            raise RenderError(f'cannot run pipeline step "{name}": {exc}') from None
        outcome.calls[name] = calls
        for result in rsp.results:
            if result.severity == fnv1.SEVERITY_FATAL:
                raise PipelineFatalError(name, result.message)
            outcome.results.append(StepResult(name, result))
        outcome.desired = rsp.desired
        outcome.context = rsp.context
        outcome.conditions.extend(rsp.conditions)
    return outcome


def _set_meta(req: fnv1.RunFunctionRequest, meta: RequestMeta) -> None:
    """Fill the request's meta as the Crossplane release rendered does.

    Core's tag is the SHA-256 of the deterministic serialisation of the request
    before meta is set (bootstrap requirements included); the requirements loop
    keeps it on every call of the step.
    """
    if meta == "none":
        return
    if meta == "tagged":
        content = req.SerializeToString(deterministic=True)
        req.meta.tag = hashlib.sha256(content).hexdigest()
    req.meta.capabilities.extend(CAPABILITIES)
