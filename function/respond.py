"""The response stage: what the stages produced, written into Crossplane's response once.

Every stage before it raises or returns; only here is a response written, so an error
can never leave a half-written desired state behind. A Fatal response carries only what
earlier steps desired (Crossplane then changes nothing).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from crossplane.function import response
from crossplane.function.proto.v1 import run_function_pb2 as fnv1

from function import errors, parse
from function.codec import response as response_bytes
from function.codec import structs
from function.codec.response import Answer
from function.models.input import Input
from function.models.requirement import Requirement
from function.resolve import merge
from function.resolve.layers import Resolution
from function.status import conditions, phase

INTERNAL_ERROR = (
    "cannot compose resources: internal error in function-asya (see the function's logs)"
)
RESOLVED_SPEC_CONTEXT_KEY = "asya.sh/resolved-spec"
FLAVORS_CONDITION = "FlavorsResolved"


@dataclass(frozen=True)
class Pending:
    """Crossplane has not fetched the flavors yet: ask for them and compose nothing."""

    settings: Input
    wanted: list[Requirement]


@dataclass(frozen=True)
class Composed:
    """Every stage succeeded: what to write into the response."""

    settings: Input
    wanted: list[Requirement]
    resolution: Resolution
    rendered: dict[str, dict[str, Any]]
    report: phase.Report


def write(request: parse.Request, outcome: Pending | Composed) -> Answer:
    """Write the response for what the stages produced.

    Called only once every stage has succeeded, so an error can never leave a
    half-written desired state behind. The desired state and the context this
    function writes go as bytes after the message (codec.response says why and how);
    every key they carry replaces the same key an earlier step wrote.
    """
    rsp = response.to(request.message, ttl=outcome.settings.ttl_delta())
    _require(rsp, outcome.wanted, legacy=not request.namespaced_selectors)
    if isinstance(outcome, Pending):
        return Answer(rsp)
    resolution, report = outcome.resolution, outcome.report
    merged_status = merge.overlay(request.earlier_status, report.status)
    # The resolved spec goes to the desired XR and the context so that functions
    # later in the pipeline read what this one rendered. Crossplane
    # never persists a desired XR spec: this is a hand-off, not a write. Its bytes
    # are written once, for both.
    spec = structs.encode(resolution.data)
    desired = response_bytes.desired(
        rsp,
        response_bytes.struct_entry("spec", spec) + structs.encode({"status": merged_status}),
        {
            name: (
                structs.encode(body),
                fnv1.READY_TRUE if report.ready[name] else fnv1.READY_FALSE,
            )
            for name, body in outcome.rendered.items()
        },
    )
    context = response_bytes.context(response_bytes.struct_entry(RESOLVED_SPEC_CONTEXT_KEY, spec))
    _warnings(rsp, resolution, report)
    applied = ", ".join(resolution.applied)
    _condition(
        rsp,
        True,
        "Resolved",
        f"Applied {len(resolution.applied)} flavor{'' if len(resolution.applied) == 1 else 's'}"
        + (f": {applied}" if applied else ""),
    )
    _aspects(rsp, report.aspects, request.conditions)
    return Answer(rsp, desired + context)


def _warnings(rsp: fnv1.RunFunctionResponse, resolution: Resolution, report: phase.Report) -> None:
    """One Warning result per warning of the resolve and status stages, by its reason."""
    for reason, warnings in (
        ("FlavorWarning", resolution.warnings),
        ("TimeoutWarning", resolution.timeout_warnings),
        ("ScalingWarning", resolution.scaling_warnings),
        ("QueueWarning", report.warnings),
    ):
        for warning in warnings:
            rsp.results.append(
                fnv1.Result(
                    severity=fnv1.SEVERITY_WARNING,
                    message=warning,
                    reason=reason,
                    target=fnv1.TARGET_COMPOSITE_AND_CLAIM,
                )
            )


def _aspects(
    rsp: fnv1.RunFunctionResponse,
    aspects: tuple[conditions.Aspect, ...],
    previous: Mapping[str, tuple[str, str]],
) -> None:
    """A condition per aspect, and an event for each whose status or reason changed."""
    for aspect in aspects:
        _condition(rsp, aspect.ok, aspect.reason, aspect.message, aspect.type)
    for aspect in conditions.changed(aspects, previous):
        rsp.results.append(
            fnv1.Result(
                severity=fnv1.SEVERITY_NORMAL if aspect.ok else fnv1.SEVERITY_WARNING,
                message=f"{aspect.type} is {aspect.ok}: " + (aspect.message or aspect.reason),
                reason=aspect.reason,
                target=fnv1.TARGET_COMPOSITE_AND_CLAIM,
            )
        )


def _require(rsp: fnv1.RunFunctionResponse, wanted: list[Requirement], legacy: bool) -> None:
    """Declare every requirement in the v2 field, and in Crossplane 1.x's too for a `legacy` caller.

    A caller that advertises required resources is asked in their field only: Crossplane
    v2.4 seeds a call with what was required last time in that field alone, and a
    requirement also declared in the other would take a second call every reconcile.
    """
    declared = rsp.requirements
    for requirement in wanted:
        selectors = [declared.resources[requirement.key]]
        if legacy and requirement.legacy:
            # Crossplane 1.x ignores a selector's namespace: asked without one, and only
            # for what may be looked for everywhere.
            selectors.append(declared.extra_resources[requirement.key])
        for selector in selectors:
            selector.api_version = requirement.api_version
            selector.kind = requirement.kind
            if requirement.match_labels:
                selector.match_labels.labels.update(dict(requirement.match_labels))
            else:
                selector.match_name = requirement.flavor
        if requirement.namespace:
            selectors[0].namespace = requirement.namespace


def _condition(
    rsp: fnv1.RunFunctionResponse,
    ok: bool,
    reason: str,
    message: str,
    kind: str = FLAVORS_CONDITION,
) -> None:
    rsp.conditions.append(
        fnv1.Condition(
            type=kind,
            status=fnv1.STATUS_CONDITION_TRUE if ok else fnv1.STATUS_CONDITION_FALSE,
            reason=reason,
            message=message,
            target=fnv1.TARGET_COMPOSITE_AND_CLAIM,
        )
    )


def fatal(
    req: fnv1.RunFunctionRequest,
    exc: errors.FunctionError | None,
    wanted: list[Requirement] | None = None,
) -> fnv1.RunFunctionResponse:
    """Return a response carrying a Fatal result and only what earlier steps desired.

    Crossplane applies nothing and deletes nothing after a Fatal result, so the
    user's existing resources stay exactly as they are. Reads nothing it could
    fail on: this is every error path's last step.
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
    _require(rsp, wanted or [], legacy=not parse.supports_required_resources(req))
    return rsp
