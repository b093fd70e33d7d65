"""The boundary: runs the stages, writes the response, and turns every failure into a Fatal result."""

from __future__ import annotations

import functools
import logging as stdlib_logging
import threading
import traceback
from collections.abc import Collection
from dataclasses import dataclass, field

import cachetools
from crossplane.function import logging
from crossplane.function.proto.v1 import run_function_pb2 as fnv1

from function import errors, parse
from function.cache import ContentCache, digest_of
from function.codec.response import Answer
from function.compose import renderers
from function.compose.renderers import meta, transports
from function.models import queues
from function.models.input import Input
from function.models.plan import Plan
from function.models.requirement import Requirement
from function.models.xr import Composite
from function.resolve import actor, requirements
from function.resolve.layers import Flavors, Resolution
from function.respond import (
    Composed,
    Pending,
    fatal,
    write,
)
from function.status import phase
from function.validate import gate, kube_schemas, ownership

# What resolving an actor needs but its own spec (its Input and flavors, read and
# merged), by a digest of their content (memo_key): a fleet's actors share a few.
RESOLVE_MEMO_SIZE = 1024


@dataclass(frozen=True)
class Prepared:
    """What the resolve memo keeps: everything resolving an actor needs but its own spec."""

    settings: Input
    wanted: list[Requirement]
    # None while Crossplane has not fetched every flavor yet (never kept in the memo).
    flavors: Flavors | None


@dataclass
class Wanted:
    """What a call asks Crossplane to fetch, by source, each stated once."""

    # The actor's flavors: where the Input says to look, once it is read.
    flavors: list[Requirement] = field(default_factory=list)
    # What the actor's name and state ask for (_actors_own).
    own: list[Requirement] = field(default_factory=list)
    # What the transport asks for (Transport.wanted).
    transport: list[Requirement] = field(default_factory=list)

    def prepared(self, flavors: list[Requirement], settings: Input, xr: Composite) -> None:
        """Ask for the flavors where the Input says to look, and for what its transport needs."""
        self.flavors = flavors
        self.transport = transports.TRANSPORTS[settings.transport].wanted(settings, xr)

    def all(self) -> list[Requirement]:
        """Every requirement, in an order that is the same on every call of a reconcile."""
        return [*self.flavors, *self.own, *self.transport]


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
        answer, actor = self._run(req)
        # Each answer computed (not from the response cache) is logged at debug, by
        # actor: which actors a change reached, and that the others cost cache hits.
        if self.log.is_enabled_for(stdlib_logging.DEBUG):
            computed = functools.partial(self.log.debug, "Answer computed", actor=actor)
            answer.after_sending = (*answer.after_sending, computed)
        return answer

    def _run(self, req: fnv1.RunFunctionRequest) -> tuple[Answer, str]:
        """The answer, and the actor it is for (namespace/name; empty when unread)."""
        wanted = Wanted()
        actor = ""
        try:
            request = parse.read(req)
            xr = request.xr
            actor = f"{xr.namespace}/{xr.name}" if xr.namespace else xr.name
            # Known as soon as the XR is read, so every error path keeps asking for
            # the flavors (a response without them would make Crossplane drop them).
            wanted.flavors = requirements.for_flavors(xr.flavors)
            # The actor's own: never in the memo, which actors of other names share. Asked
            # alike on every call of a reconcile (each depends only on the XR and what is
            # observed), so Crossplane's requirements loop settles after the flavors.
            wanted.own = requirements.actors_own(
                xr, request.observed.get(meta.DEPLOYMENT), by_name=request.namespaced_selectors
            )
            prepared = self._prepare(request, wanted)
            if prepared.flavors is None:
                return write(request, Pending(prepared.settings, wanted.all())), actor
            resolution = gate.admit(xr, prepared.settings, prepared.flavors)
            _refuse_namesakes(request, resolution.spec.actor, prepared.settings)
            outcome = compose(request, prepared.settings, wanted, resolution)
            answer = write(request, outcome)
        except errors.FunctionError as exc:
            return Answer(fatal(req, exc, wanted.all())), actor
        except Exception as exc:  # noqa: BLE001  # The boundary: nothing may escape.
            # Not log.exception: its tracebacks carry the message and every frame's
            # locals, which hold the user's env values and secret names.
            self.log.error(  # noqa: TRY400  # see above
                "Unexpected error while running the function",
                error=type(exc).__qualname__,
                at=where(exc),
            )
            return Answer(fatal(req, None, wanted.all())), actor
        if (applied := outcome.resolution.applied) and self.applied.changed(actor, applied):
            answer.after_sending = (
                functools.partial(
                    self.log.info, "Flavors applied", actor=xr.name, flavors=list(applied)
                ),
            )
        return answer, actor

    def _prepare(self, request: parse.Request, wanted: Wanted) -> Prepared:
        """The Input and the actor's flavors, from the memo or read anew; says what they ask for.

        The flavors are None while Crossplane has not fetched them all yet.
        """
        xr, selectors = request.xr, request.namespaced_selectors
        keys = requirements.possible_keys(xr.flavors)
        key = memo_key(request, keys) if self.memo.enabled else b""
        prepared = self.memo.get(key)
        if prepared is not None:
            wanted.prepared(prepared.wanted, prepared.settings, xr)
            return prepared
        read = request.shared(keys)
        found = actor.lookup(xr, read.settings, namespaced_selectors=selectors)
        # Before the flavors are read: one that fails still asks for all they asked.
        wanted.prepared(found.wanted, read.settings, xr)
        fetched = read.answered(found.keys)
        flavors = None if fetched is None else actor.flavors_of(found, fetched)
        prepared = Prepared(read.settings, found.wanted, flavors)
        if flavors is not None:
            self.memo.put(key, prepared)
        return prepared


def _refuse_namesakes(request: parse.Request, name: str, settings: Input) -> None:
    """Refuse an actor whose name, wrapped workload or queue another actor holds."""
    xr = request.xr
    own = request.fetched(requirements.WORKLOADS_KEY)
    ownership.refuse_if_taken(xr, name, own)
    ownership.refuse_if_wrapped_taken(xr, name, request.fetched(requirements.WRAPPED_WORKLOADS_KEY))
    ownership.refuse_if_queue_taken(
        xr,
        name,
        own,
        {
            pair: request.fetched(requirements.NAMESAKES_KEY_PREFIX + pair[0])
            for pair in queues.namesakes(name, xr.namespace)
        },
        settings.broker(),
    )


def memo_key(request: parse.Request, keys: Collection[str]) -> bytes:
    """A digest of what a `Prepared` is made of.

    The Input and the flavors fetched under `keys` (Request.shared_key), and what decides which of
    them the actor gets: its flavors in order, its namespace, and whether the
    caller's selectors honour namespaces.
    """
    xr = request.xr
    return digest_of(
        [
            request.shared_key(keys),
            "\n".join(xr.flavors).encode(),
            xr.namespace.encode(),
            b"namespaced" if xr.namespaced else b"",
            b"namespaced selectors" if request.namespaced_selectors else b"",
        ]
    )


def where(exc: BaseException) -> list[str]:
    """The frames an exception passed through, as file:line in function, without values."""
    return [
        f"{frame.filename}:{frame.lineno} in {frame.name}"
        for frame in traceback.extract_tb(exc.__traceback__)
    ]


def compose(
    request: parse.Request, settings: Input, wanted: Wanted, resolution: Resolution
) -> Composed:
    """Render the resolved actor and derive its status from what is observed."""
    fetched = {r.key: request.fetched(r.key) for r in wanted.transport}
    plan = Plan(
        xr=request.xr,
        spec=resolution.spec,
        settings=settings,
        observed=request.observed,
        transport_fetched={key: found for key, found in fetched.items() if found is not None},
        pods=request.fetched(requirements.PODS_KEY),
        autoscalers=request.fetched(requirements.AUTOSCALER_KEY),
        last_rendered=request.last_rendered,
        synced=request.conditions.get("Synced", ("", ""))[0] != "False",
        origin=resolution.provenance,
    )
    rendered = renderers.render_all(plan)
    return Composed(settings, wanted.all(), resolution, rendered, phase.derive(plan, rendered))
