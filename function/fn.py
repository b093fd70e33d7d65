"""The gRPC boundary: runs the stages and turns every failure into a Fatal result."""

from __future__ import annotations

import traceback
from typing import Any

import grpc
from crossplane.function import logging, response
from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from crossplane.function.proto.v1 import run_function_pb2_grpc as grpcv1

from function import errors, flavors, merge, parse, render, requirements, status, structs
from function.models import xr as xr_model
from function.models.plan import Plan

INTERNAL_ERROR = (
    "cannot compose resources: internal error in function-asya (see the function's logs)"
)
RESOLVED_SPEC_CONTEXT_KEY = "asya.sh/resolved-spec"
FLAVORS_CONDITION = "FlavorsResolved"


class FunctionRunner(grpcv1.FunctionRunnerServiceServicer):
    """Resolves an AsyncActor's flavors, renders its resources, and reports its phase."""

    def __init__(self) -> None:
        """Create a runner; it keeps no state between calls."""
        self.log = logging.get_logger()

    async def RunFunction(  # noqa: N802  # gRPC requires this name.
        self, req: fnv1.RunFunctionRequest, _context: grpc.aio.ServicerContext | None = None
    ) -> fnv1.RunFunctionResponse:
        """Run the function once; never raises, never returns a gRPC error."""
        return self.run_once(req)

    def run_once(self, req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
        """Run the function once, synchronously (the server runs it off its event loop)."""
        try:
            return run(req, self.log)
        except errors.FunctionError as exc:
            return fatal(req, exc)
        except Exception as exc:  # noqa: BLE001  # The boundary: nothing may escape.
            # Not log.exception: its tracebacks carry the message and every frame's
            # locals, which hold the user's env values and secret names.
            self.log.error(  # noqa: TRY400  # see above
                "Unexpected error while running the function",
                error=type(exc).__qualname__,
                at=where(exc),
            )
            return fatal(req, None)


def where(exc: BaseException) -> list[str]:
    """The frames an exception passed through, as file:line in function, without values."""
    return [
        f"{frame.filename}:{frame.lineno} in {frame.name}"
        for frame in traceback.extract_tb(exc.__traceback__)
    ]


def run(req: fnv1.RunFunctionRequest, log: Any) -> fnv1.RunFunctionResponse:
    """Run the stages: request → parse → flavors → render → status → response.

    Raises:
        FunctionError: for any input the composition cannot proceed with.
    """
    settings = parse.settings(req)
    xr = xr_model.parse(parse.observed_composite(req))
    wanted = requirements.for_flavors(xr.flavors)
    fetched = parse.required(req, [r.key for r in wanted])
    if fetched is None:
        # Not fetched yet: ask, and add nothing until Crossplane calls again.
        rsp = response.to(req, ttl=settings.ttl_delta())
        _require(rsp, wanted)
        return rsp
    missing = [r.flavor for r in wanted if not fetched[r.key]]
    if missing:
        raise errors.WaitingForFlavorsError(
            f"Waiting for {len(missing)} flavor EnvironmentConfigs: {', '.join(missing)}"
        )
    layers = [flavors.from_environment_config(r.flavor, fetched[r.key][0]) for r in wanted]
    resolution = flavors.resolve(xr, layers)
    plan = Plan(
        xr=xr,
        spec=resolution.spec,
        data=resolution.data,
        settings=settings,
        observed=parse.observed_resources(req),
    )
    rendered = render.render_all(plan)
    report = status.derive(plan, rendered)

    # The response is built only once every stage has succeeded, so an error
    # can never leave a half-written desired state behind.
    rsp = response.to(req, ttl=settings.ttl_delta())
    _require(rsp, wanted)
    composite = rsp.desired.composite.resource
    earlier = structs.value_of(composite.fields["status"]) if "status" in composite.fields else {}
    merged_status = merge.overlay(earlier if isinstance(earlier, dict) else {}, report.status)
    structs.fill(composite, {"spec": resolution.data, "status": merged_status})
    for name, body in rendered.items():
        structs.fill(rsp.desired.resources[name].resource, body)
        rsp.desired.resources[name].ready = (
            fnv1.READY_TRUE if report.ready[name] else fnv1.READY_FALSE
        )
    # The same spec again for later steps: copy the Struct rather than convert twice.
    rsp.context.fields[RESOLVED_SPEC_CONTEXT_KEY].struct_value.CopyFrom(
        composite.fields["spec"].struct_value
    )
    for warning in resolution.warnings:
        rsp.results.append(
            fnv1.Result(
                severity=fnv1.SEVERITY_WARNING,
                message=warning,
                reason="FlavorWarning",
                target=fnv1.TARGET_COMPOSITE_AND_CLAIM,
            )
        )
    applied = ", ".join(resolution.applied)
    _condition(
        rsp,
        True,
        "Resolved",
        f"Applied {len(resolution.applied)} flavors" + (f": {applied}" if applied else ""),
    )
    if resolution.applied:
        log.info("Flavors applied", actor=xr.name, flavors=list(resolution.applied))
    return rsp


def _require(rsp: fnv1.RunFunctionResponse, wanted: list[requirements.Requirement]) -> None:
    """Declare every requirement in both the v2 and the Crossplane 1.x fields."""
    for requirement in wanted:
        selector = fnv1.ResourceSelector(
            api_version=requirement.api_version,
            kind=requirement.kind,
            match_name=requirement.flavor,
        )
        rsp.requirements.resources[requirement.key].CopyFrom(selector)
        rsp.requirements.extra_resources[requirement.key].CopyFrom(selector)


def _condition(rsp: fnv1.RunFunctionResponse, ok: bool, reason: str, message: str) -> None:
    rsp.conditions.append(
        fnv1.Condition(
            type=FLAVORS_CONDITION,
            status=fnv1.STATUS_CONDITION_TRUE if ok else fnv1.STATUS_CONDITION_FALSE,
            reason=reason,
            message=message,
            target=fnv1.TARGET_COMPOSITE_AND_CLAIM,
        )
    )


def fatal(
    req: fnv1.RunFunctionRequest, exc: errors.FunctionError | None
) -> fnv1.RunFunctionResponse:
    """Return a response carrying a Fatal result and only what earlier steps desired.

    Crossplane applies nothing and deletes nothing after a Fatal result, so the
    user's existing resources stay exactly as they are.
    """
    rsp = fnv1.RunFunctionResponse(meta=fnv1.ResponseMeta(tag=req.meta.tag))
    rsp.desired.CopyFrom(req.desired)
    rsp.context.CopyFrom(req.context)
    message = str(exc) if exc is not None else INTERNAL_ERROR
    rsp.results.append(
        fnv1.Result(
            severity=fnv1.SEVERITY_FATAL,
            message=message,
            reason=exc.reason if exc is not None else "InternalError",
            target=fnv1.TARGET_COMPOSITE,
        )
    )
    if isinstance(exc, errors.FlavorError):
        _condition(rsp, False, exc.reason, message)
    with_requirements(req, rsp)
    return rsp


def with_requirements(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    """Keep declaring the flavors' requirements on error paths, when they can be known."""
    try:
        xr = xr_model.parse(parse.observed_composite(req))
    except errors.FunctionError:
        return
    _require(rsp, requirements.for_flavors(xr.flavors))
