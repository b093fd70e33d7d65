"""What a change to the flavor library does to every actor, before it is applied.

Each actor is answered twice by the function itself (`FunctionRunner.answer`, the code
a served call runs), once with the library before the change and once after, as the
second call of Crossplane's requirements loop: the flavors it asks for already fetched.
The two answers' composed resources give the verdict, and their resolved specs (the
desired XR's spec, handed to later steps): with no observed state, what waits for it
(SQS's ScaledObject waits for the queue's URL) is not composed, and a change to it shows
in the spec alone.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from crossplane.function.proto.v1 import run_function_pb2 as fnv1

from function.cli.tools import library
from function.cli.tools.library import Entry
from function.codec import structs
from function.errors import FunctionError
from function.models import input as fn_input
from function.models import xr as xr_model
from function.resolve import actor as resolver
from function.resolve import paths
from function.runner import FunctionRunner

# Who set a value of the resolved spec, by its keys and indexes (None: unknown).
SourceOf = Callable[[tuple[str | int, ...]], str | None]

# Worse last: --fail-on V fails on V and anything worse. `fixed`: refused (or waiting
# for a missing flavor) before the change, composed after it.
VERDICTS = ("unchanged", "fixed", "changed", "restart", "refused")


@dataclass(frozen=True)
class Change:
    """One value that differs: in a composed resource, or in the resolved spec (with its source)."""

    resource: str
    path: str  # a JSON pointer
    before: Any
    after: Any
    source: str | None = None
    # A spec change's path as the function's messages write it (`env[MODEL_URL]`).
    field: str = ""

    def as_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {
            "resource": self.resource,
            "path": self.path,
            "before": self.before,
            "after": self.after,
            "source": self.source,
        } | ({"field": self.field} if self.field else {})


@dataclass(frozen=True)
class Verdict:
    """What the change does to one actor."""

    actor: str  # <namespace>/<name>
    verdict: str
    changes: tuple[Change, ...] = ()
    error: str = ""  # why it is refused; for `fixed`, why it was
    # Refused before the change too, for the same reason: not the change's doing.
    as_before: bool = False

    def as_dict(self) -> dict[str, Any]:
        """The JSON form."""
        found: dict[str, Any] = {
            "actor": self.actor,
            "verdict": self.verdict,
            "changes": [c.as_dict() for c in self.changes],
        }
        if self.error:
            found["error"] = self.error
        if self.as_before:
            found["asBefore"] = True
        return found


@dataclass(frozen=True)
class Reply:
    """What the function replied for an actor: its composed resources and resolved spec, or why none."""

    refused: str = ""
    resources: dict[str, Any] = field(default_factory=dict)
    spec: dict[str, Any] = field(default_factory=dict)


def answer(
    runner: FunctionRunner,
    body: dict[str, Any],
    fetched: dict[str, list[dict[str, Any]]],
    settings: dict[str, Any],
) -> Reply:
    """Answer one actor as the function does, `fetched` answering its requirements.

    `settings` is the Composition step's Input, as the function receives it.
    """
    req = fnv1.RunFunctionRequest()
    req.meta.capabilities.append(fnv1.CAPABILITY_REQUIRED_RESOURCES)
    try:
        req.observed.composite.resource.update(body)
        req.input.update(settings)
    except (ValueError, TypeError) as exc:  # what no Struct can hold
        return Reply(refused=f"cannot read the actor: {exc}")
    for key, items in fetched.items():
        answered = req.required_resources[key]
        for item in items:
            answered.items.add().resource.update(item)
    rsp = runner.answer(req).message()
    fatal = [r.message for r in rsp.results if r.severity == fnv1.SEVERITY_FATAL]
    if fatal:
        return Reply(refused=fatal[0])
    if not rsp.desired.resources:
        # The function asked for more than the library holds: a flavor is missing.
        waiting = [c.message for c in rsp.conditions if c.reason == "WaitingForFlavors"]
        return Reply(refused=waiting[0] if waiting else "the function composed nothing")
    composite = structs.plain(rsp.desired.composite.resource)
    return Reply(
        resources={name: structs.plain(r.resource) for name, r in rsp.desired.resources.items()},
        spec=composite.get("spec") or {},
    )


def fetched(
    body: dict[str, Any], settings: fn_input.Input, *libraries: Sequence[Entry]
) -> list[dict[str, list[dict[str, Any]]]] | str:
    """What each library answers the actor's requirements with, or why it asks for none."""
    try:
        xr = xr_model.parse(body)
        found = resolver.lookup(xr, settings, namespaced_selectors=True)
    except FunctionError as exc:
        return str(exc)
    return [library.fetched_for(found, entries) for entries in libraries]


def pod_template(resources: Mapping[str, Any]) -> Any:
    """The Deployment's pod template, composed directly or wrapped in an Object."""
    body = resources.get("deployment") or {}
    manifest = (body.get("spec") or {}).get("forProvider", {}).get("manifest")
    deployment = manifest if isinstance(manifest, dict) else body
    return (deployment.get("spec") or {}).get("template")


Location = tuple[str | int, ...]


def differences(before: Any, after: Any, at: Location = ()) -> Iterator[tuple[Location, Any, Any]]:
    """Every leaf (or subtree) that differs, as (keys and indexes, before, after).

    Lists differ item by item: matched by `name` or `key` where every item has a
    distinct one (an item added or removed is one change, at its own index), else by
    position.
    """
    if before == after:  # compared in C: most of a resource is the same
        return
    if isinstance(before, dict) and isinstance(after, dict):
        for key in sorted(set(before) | set(after)):
            yield from differences(before.get(key), after.get(key), (*at, key))
    elif isinstance(before, list) and isinstance(after, list):
        for index, old, new in _paired(before, after):
            yield from differences(old, new, (*at, index))
    else:
        yield at, before, after


def _paired(before: list[Any], after: list[Any]) -> list[tuple[int, Any, Any]]:
    """The items of two lists as (index, before, after), None where one list has none."""
    for key in ("name", "key"):
        old, new = (
            {i[key]: (n, i) for n, i in enumerate(items) if _named(i, key)}
            for items in (before, after)
        )
        if (len(old), len(new)) == (len(before), len(after)):  # each item named apart
            paired = [(n, old.get(k, (n, None))[1], i) for k, (n, i) in new.items()]
            return paired + [(n, i, None) for k, (n, i) in old.items() if k not in new]
    return [
        (n, before[n] if n < len(before) else None, after[n] if n < len(after) else None)
        for n in range(max(len(before), len(after)))
    ]


def _named(item: Any, key: str) -> bool:
    return isinstance(item, dict) and isinstance(item.get(key), str)


def pointer(at: Sequence[str | int]) -> str:
    """A JSON pointer (RFC 6901)."""
    return "".join("/" + str(step).replace("~", "~0").replace("/", "~1") for step in at)


def judge(label: str, before: Reply, after: Reply, source_of: SourceOf | None = None) -> Verdict:
    """The verdict for one actor, and what changed (each spec change with who set it after)."""
    if after.refused:
        return Verdict(
            label, "refused", error=after.refused, as_before=before.refused == after.refused
        )
    if before.refused:
        # Composed for the first time: nothing of it ran to restart.
        return Verdict(label, "fixed", _changes(before, after, source_of), error=before.refused)
    if before.resources == after.resources and before.spec == after.spec:
        return Verdict(label, "unchanged")
    rolls = pod_template(before.resources) != pod_template(after.resources)
    return Verdict(label, "restart" if rolls else "changed", _changes(before, after, source_of))


def _changes(before: Reply, after: Reply, source_of: SourceOf | None) -> tuple[Change, ...]:
    found = [
        Change(
            "spec",
            pointer(at),
            old,
            new,
            source_of(at) if source_of and new is not None else None,
            paths.dotted(paths.located(before.spec if new is None else after.spec, at)),
        )
        for at, old, new in differences(before.spec, after.spec)
    ]
    # A composed resource's value that changed as a spec value did is that value, rendered:
    # it has that value's source (a value the renderers derive, such as a hash, has none).
    by_values = {_values(c.before, c.after): c.source for c in found if c.source is not None}
    for name in sorted(set(before.resources) | set(after.resources)):
        found += [
            Change(name, pointer(at), old, new, by_values.get(_values(old, new)))
            for at, old, new in differences(before.resources.get(name), after.resources.get(name))
        ]
    return tuple(found)


def _values(before: Any, after: Any) -> str:
    # Keys sorted: the two sides' maps come from protobuf Structs, each in its own order.
    return json.dumps((before, after), sort_keys=True)


def _sources_after(
    body: dict[str, Any], entries: Sequence[Entry], settings: fn_input.Input
) -> SourceOf | None:
    """Who set each value of the actor's spec after the change (None when it does not resolve)."""
    try:
        resolution = library.resolve(body, entries, settings)
    except FunctionError:
        return None

    def source_of(at: tuple[str | int, ...]) -> str | None:
        try:
            _, layer = resolution.provenance.blame(at)
        except (KeyError, IndexError, TypeError):
            return None
        return f"flavor {layer.flavor}" if layer.kind == "flavor" else layer.kind

    return source_of


def plan(
    actors: Sequence[dict[str, Any]],
    before: Sequence[Entry],
    after: Sequence[Entry],
    settings: Callable[[dict[str, Any]], tuple[dict[str, Any], fn_input.Input]],
    progress: Callable[[int], None] | None = None,
) -> list[Verdict]:
    """Each actor's verdict.

    `settings` gives an actor's Input (its form's Composition's): as the function
    receives it, and parsed.

    One function runner per library: its resolve memo reads and merges each set of
    flavors once, for every actor that lists it.
    """
    first, second = FunctionRunner(), FunctionRunner()
    verdicts = []
    for body in actors:
        given, parsed = settings(body)
        flavors = fetched(body, parsed, before, after)
        if isinstance(flavors, str):
            old = new = Reply(refused=flavors)
        else:
            old = answer(first, body, flavors[0], given)
            # The same flavors both times: the same answer, asked for once.
            new = old if flavors[1] == flavors[0] else answer(second, body, flavors[1], given)
        source_of = None
        if not new.refused and (
            old.refused or old.resources != new.resources or old.spec != new.spec
        ):
            source_of = _sources_after(body, after, parsed)
        verdicts.append(judge(library.actor_label(body), old, new, source_of))
        if progress is not None:
            progress(1)
    return verdicts
