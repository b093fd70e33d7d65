"""The boundary: runs the stages, writes the response, and turns every failure into a Fatal result."""

from __future__ import annotations

import functools
import threading
import traceback
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

import cachetools
from crossplane.function import logging, response
from crossplane.function.proto.v1 import run_function_pb2 as fnv1

from function import errors, parse
from function.cache import ContentCache, digest_of
from function.codec import response as response_bytes
from function.codec import structs
from function.codec.response import Answer
from function.compose import conditions, health, render, status
from function.compose.render import meta, sqs, transports
from function.models.input import Input
from function.models.plan import Plan
from function.models.xr import Composite
from function.resolve import actor, kube_schemas, merge, ownership, requirements
from function.resolve.layers import Flavors, Resolution

INTERNAL_ERROR = (
    "cannot compose resources: internal error in function-asya (see the function's logs)"
)
RESOLVED_SPEC_CONTEXT_KEY = "asya.sh/resolved-spec"
FLAVORS_CONDITION = "FlavorsResolved"
# What resolving an actor needs but its own spec (its Input and flavors, read and
# merged), by a digest of their content (memo_key): a fleet's actors share a few.
RESOLVE_MEMO_SIZE = 1024


@dataclass(frozen=True)
class Prepared:
    """What the resolve memo keeps: everything resolving an actor needs but its own spec."""

    settings: Input
    wanted: list[requirements.Requirement]
    flavors: Flavors


@dataclass(frozen=True)
class Pending:
    """Crossplane has not fetched the flavors yet: ask for them and compose nothing."""

    settings: Input
    wanted: list[requirements.Requirement]


@dataclass(frozen=True)
class Composed:
    """Every stage succeeded: what to write into the response."""

    settings: Input
    wanted: list[requirements.Requirement]
    resolution: Resolution
    rendered: dict[str, dict[str, Any]]
    report: status.Report


class AppliedFlavors:
    """The flavors last applied to each actor, so "Flavors applied" is logged when they change.

    Bounded (the oldest actors are forgotten, and logged again when next seen) and
    thread-safe. It changes what is logged, never an answer.
    """

    SIZE = 10_000

    def __init__(self) -> None:
        """Remember nothing yet."""
        self._last: cachetools.LRUCache[str, tuple[str, ...]] = cachetools.LRUCache(self.SIZE)
        self._lock = threading.Lock()

    def changed(self, actor: str, applied: tuple[str, ...]) -> bool:
        """Record what was applied to an actor; tell whether it differs from last time."""
        with self._lock:
            before = self._last.get(actor)
            self._last[actor] = applied
        return before != applied


class FunctionRunner:
    """Resolves an AsyncActor's flavors, renders its resources, and reports its phase.

    It keeps no state between calls beyond its resolve memo (the Input and the
    flavors, read and merged once per content, so it never changes an answer) and the
    flavors last logged per actor (which change only what is logged); both are
    safe to share between threads.
    """

    def __init__(self, memo_size: int = RESOLVE_MEMO_SIZE) -> None:
        """Create a runner with an empty memo (size 0: none).

        Kubernetes' schemas are read and compiled now, not on the first actor's call:
        a package that does not hold them fails the server's start, not every call.
        """
        kube_schemas.validator()
        self.log = logging.get_logger()
        self.memo: ContentCache[Prepared] = ContentCache(memo_size)
        self.applied = AppliedFlavors()

    def answer(self, req: fnv1.RunFunctionRequest) -> Answer:
        """Run the function once; never raises, never returns a gRPC error."""
        # Known as soon as the XR is read, so every error path keeps asking for
        # the flavors (a response without them would make Crossplane drop them).
        wanted: list[requirements.Requirement] = []
        try:
            xr = parse.composite(req)
            observed = parse.observed_resources(req)
            # The actor's own: never in the memo, which actors of other names share. Asked
            # alike on every call of a reconcile (each depends only on the XR and what is
            # observed), so Crossplane's requirements loop settles after the flavors.
            workloads = _actors_own(xr, observed)
            wanted = [*requirements.for_flavors(xr.flavors), *workloads]
            selectors = parse.supports_required_resources(req)
            keys = requirements.possible_keys(xr.flavors)
            key = memo_key(req, xr, keys, selectors) if self.memo.enabled else b""
            prepared = self.memo.get(key)
            if prepared is None:
                read = parse.shared(req, keys)
                found = actor.lookup(xr, read.settings, namespaced_selectors=selectors)
                wanted = [*found.wanted, *workloads, *_dead_letter(read.settings, xr)]
                fetched = read.answered(found.keys)
                if fetched is None:
                    return write(req, Pending(read.settings, wanted))
                prepared = Prepared(read.settings, found.wanted, actor.flavors_of(found, fetched))
                self.memo.put(key, prepared)
            wanted = [*prepared.wanted, *workloads, *_dead_letter(prepared.settings, xr)]
            resolution = actor.resolve_with(xr, prepared.settings, prepared.flavors)
            own = parse.fetched(req, requirements.WORKLOADS_KEY)
            ownership.refuse_if_taken(xr, resolution.spec.actor, own)
            ownership.refuse_if_wrapped_taken(
                xr, resolution.spec.actor, parse.fetched(req, requirements.WRAPPED_WORKLOADS_KEY)
            )
            ownership.refuse_if_queue_taken(
                xr,
                resolution.spec.actor,
                own,
                {
                    pair: parse.fetched(req, requirements.NAMESAKES_KEY_PREFIX + pair[0])
                    for pair in requirements.queue_namesakes(resolution.spec.actor, xr.namespace)
                },
                transports.TRANSPORTS[prepared.settings.transport].broker(prepared.settings),
            )
            outcome = compose(req, xr, prepared.settings, wanted, resolution, observed)
            answer = write(req, outcome)
        except errors.FunctionError as exc:
            return Answer(fatal(req, exc, wanted))
        except Exception as exc:  # noqa: BLE001  # The boundary: nothing may escape.
            # Not log.exception: its tracebacks carry the message and every frame's
            # locals, which hold the user's env values and secret names.
            self.log.error(  # noqa: TRY400  # see above
                "Unexpected error while running the function",
                error=type(exc).__qualname__,
                at=where(exc),
            )
            return Answer(fatal(req, None, wanted))
        if (applied := outcome.resolution.applied) and self.applied.changed(
            f"{xr.namespace}/{xr.name}", applied
        ):
            answer.afterwards = (
                functools.partial(
                    self.log.info, "Flavors applied", actor=xr.name, flavors=list(applied)
                ),
            )
        return answer


def memo_key(
    req: fnv1.RunFunctionRequest,
    xr: Composite,
    keys: Collection[str],
    namespaced_selectors: bool,
) -> bytes:
    """A digest of what a `Prepared` is made of.

    The Input and the flavors fetched under `keys` (parse.shared_key), and what decides which of
    them the actor gets: its flavors in order, its namespace, and whether the
    caller's selectors honour namespaces.
    """
    return digest_of(
        [
            parse.shared_key(req, keys),
            "\n".join(xr.flavors).encode(),
            xr.namespace.encode(),
            b"namespaced" if xr.namespaced else b"",
            b"namespaced selectors" if namespaced_selectors else b"",
        ]
    )


def _actors_own(
    xr: Composite, observed: Mapping[str, Mapping[str, Any]]
) -> list[requirements.Requirement]:
    """The Deployments of the actor's name and of its queue's, KEDA's HPA, and its Pods while unhealthy.

    The HPA is asked for whether or not the actor scales (its flavors may say either;
    none exists when it does not): the requirements must not change once they resolve.
    Its Pods say why its Deployment is not available; a healthy actor's are never read.
    """
    actor = xr.spec.get("actor")
    wanted = [
        *requirements.for_workloads(actor, xr.namespace),
        *requirements.for_queue_namesakes(actor, xr.namespace),
        *requirements.for_autoscaler(actor, xr.namespace),
    ]
    if not xr.namespaced:
        wanted += requirements.for_wrapped_workloads(actor)
    if health.needs_pods(observed.get(meta.DEPLOYMENT)):
        wanted += requirements.for_pods(actor, xr.namespace)
    return wanted


def _dead_letter(settings: Input, xr: Composite) -> list[requirements.Requirement]:
    """The namespace's dead-letter queue, asked for where a redrive policy would point at it."""
    if settings.transport != "sqs" or not settings.aws.account_id:
        return []
    legacy, namespaced = sqs.QUEUE_API_VERSIONS
    if xr.namespaced:
        return [requirements.for_dead_letter_queue(namespaced, xr.namespace)]
    return [requirements.for_dead_letter_queue(legacy, "")]


def where(exc: BaseException) -> list[str]:
    """The frames an exception passed through, as file:line in function, without values."""
    return [
        f"{frame.filename}:{frame.lineno} in {frame.name}"
        for frame in traceback.extract_tb(exc.__traceback__)
    ]


def compose(
    req: fnv1.RunFunctionRequest,
    xr: Composite,
    settings: Input,
    wanted: list[requirements.Requirement],
    resolution: Resolution,
    observed: Mapping[str, Mapping[str, Any]],
) -> Composed:
    """Render the resolved actor against what is observed, and derive its status."""
    plan = Plan(
        xr=xr,
        spec=resolution.spec,
        settings=settings,
        observed=observed,
        dead_letter_queues=parse.fetched(req, requirements.DEAD_LETTER_KEY),
        pods=parse.fetched(req, requirements.PODS_KEY),
        autoscalers=parse.fetched(req, requirements.AUTOSCALER_KEY),
        origin=resolution.provenance,
    )
    rendered = render.render_all(plan)
    return Composed(settings, wanted, resolution, rendered, status.derive(plan, rendered))


def write(
    req: fnv1.RunFunctionRequest,
    outcome: Pending | Composed,
) -> Answer:
    """Write the response for what the stages produced.

    Called only once every stage has succeeded, so an error can never leave a
    half-written desired state behind. The desired state and the context this
    function writes go as bytes after the message (codec.response says why and how);
    every key they carry replaces the same key an earlier step wrote.
    """
    rsp = response.to(req, ttl=outcome.settings.ttl_delta())
    _require(rsp, outcome.wanted)
    if isinstance(outcome, Pending):
        return Answer(rsp)
    resolution, report = outcome.resolution, outcome.report
    composite = rsp.desired.composite.resource
    earlier = structs.value_of(composite.fields["status"]) if "status" in composite.fields else {}
    merged_status = merge.overlay(earlier if isinstance(earlier, dict) else {}, report.status)
    # The resolved spec goes to the desired XR and the context so that functions
    # later in the pipeline read what this one rendered (SPEC §5.5). Crossplane
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
    applied = ", ".join(resolution.applied)
    _condition(
        rsp,
        True,
        "Resolved",
        f"Applied {len(resolution.applied)} flavor{'' if len(resolution.applied) == 1 else 's'}"
        + (f": {applied}" if applied else ""),
    )
    _aspects(rsp, report.aspects, parse.composite_conditions(req))
    return Answer(rsp, desired + context)


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


def _require(rsp: fnv1.RunFunctionResponse, wanted: list[requirements.Requirement]) -> None:
    """Declare every requirement in both the v2 and the Crossplane 1.x fields."""
    declared = rsp.requirements
    for requirement in wanted:
        selectors = [declared.resources[requirement.key]]
        if requirement.legacy:
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
    wanted: list[requirements.Requirement] | None = None,
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
    _require(rsp, wanted or [])
    return rsp
