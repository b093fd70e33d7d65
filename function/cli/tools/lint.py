"""`function-asya flavors lint`: what the function would say about a flavor library, before any actor does.

Every rule is the function's own: a flavor is validated by resolving it as the only
flavor of a placeholder actor, pairs by the function's merge, actors by the
function's resolution.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from function.cli.tools import library
from function.cli.tools.library import Entry
from function.errors import FunctionError, MergeConflictError
from function.models import names, queues
from function.models import xr as xr_model
from function.models.input import Input
from function.resolve import layers, merge
from function.resolve.layers import IGNORED_IN_FLAVORS
from function.resolve.sources import FLAVOR_LABEL
from function.validate import gate

ERROR = "error"
# Two flavors that cannot be combined: worth knowing, not wrong (cpu-small and
# cpu-large are alternatives), so it never fails the run.
CONFLICT = "conflict"
WARNING = "warning"
SEVERITIES = (ERROR, CONFLICT, WARNING)
# What a placeholder actor sets so that a flavor can be validated alone; a field the
# flavor sets itself is left to it.
PLACEHOLDER = {"actor": "flavor-lint", "image": "flavor-lint:0", "handler": "flavor_lint.handle"}


@dataclass(frozen=True)
class Finding:
    """One thing lint has to say."""

    flavor: str | None
    path: str
    severity: str
    message: str
    actor: str | None = None

    def as_text(self) -> str:
        """`<flavor>: <path>: <message>` (or `actor <name>: …`)."""
        who = f"actor {self.actor}" if self.actor else str(self.flavor)
        return ": ".join(
            part for part in (who, self.path, f"{self.severity}: {self.message}") if part
        )

    def as_dict(self) -> dict[str, Any]:
        """The JSON form; `actor` only for findings about an actor."""
        found = asdict(self)
        if found["actor"] is None:
            del found["actor"]
        return found


def _placeholder_xr(entry: Entry) -> xr_model.Composite:
    data = entry.flavor.data if entry.flavor else {}
    spec = {key: value for key, value in PLACEHOLDER.items() if key not in data or key == "actor"}
    return xr_model.parse(
        {
            "metadata": {"name": "flavor-lint", "namespace": entry.namespace or "flavor-lint"},
            "spec": spec,
        }
    )


def check_flavor(entry: Entry, settings: Input) -> list[Finding]:
    """What is wrong with one flavor on its own."""
    name = entry.name
    if entry.error or entry.flavor is None:
        return [Finding(name, "", ERROR, entry.error)]
    found: list[Finding] = []
    if not names.is_object_name(name):
        found.append(Finding(name, "", ERROR, f"{name!r} is not a valid object name"))
    labels = (entry.body.get("metadata") or {}).get("labels") or {}
    label = labels.get(FLAVOR_LABEL)
    said = f'label {FLAVOR_LABEL} is "{label}"' if label else f"no label {FLAVOR_LABEL}"
    if entry.kind == "ConfigMap" and label != name:
        # The function asks for a ConfigMap flavor by its name and this label: never found.
        found.append(
            Finding(
                name,
                "",
                ERROR,
                f'{said}, not the ConfigMap\'s name "{name}": the function never finds it, '
                f'and an actor listing "{name}" waits for it',
            )
        )
    elif entry.kind == "EnvironmentConfig" and label != name:
        found.append(Finding(name, "", WARNING, f"{said}, not the flavor's name"))
    flavor = entry.flavor
    if not flavor.data:
        found.append(Finding(name, "", WARNING, "the flavor has no data: it changes nothing"))
    for key in sorted(k for k in flavor.data if k in IGNORED_IN_FLAVORS):
        found.append(
            Finding(name, key, WARNING, "a flavor cannot set this; the function ignores it")
        )
    if flavor.deprecated:
        found.append(
            Finding(
                name, "", WARNING, f"deprecated: {flavor.deprecation_message or 'no reason given'}"
            )
        )
    try:
        resolution = gate.admit(_placeholder_xr(entry), settings, layers.merge_flavors([flavor]))
    except FunctionError as exc:
        found.append(Finding(name, exc.path, ERROR, str(exc)))
        return found
    found += [
        Finding(name, "", WARNING, warning)
        for warning in (*resolution.timeout_warnings, *resolution.scaling_warnings)
    ]
    return found


def _combinable(first: Entry, second: Entry) -> bool:
    """Whether one actor could list both: distinct names, and ConfigMaps of one namespace."""
    if first.name == second.name:
        return False
    return not (first.namespace and second.namespace and first.namespace != second.namespace)


def check_pairs(entries: Sequence[Entry]) -> list[Finding]:
    """Every pair of flavors that cannot be combined, with the function's message."""
    usable = [(e, e.flavor) for e in entries if e.flavor is not None]
    found = []
    for (first, one), (second, other) in itertools.combinations(usable, 2):
        if not _combinable(first, second):
            continue
        try:
            merge.merge_flavors(
                [(one.name, one.data), (other.name, other.data)],
                labels={one.name: one.label, other.name: other.label},
            )
        except MergeConflictError as exc:
            found.append(Finding(f"{first.name}, {second.name}", exc.path, CONFLICT, str(exc)))
    return found


def check_actor(body: dict[str, Any], entries: Sequence[Entry], settings: Input) -> list[Finding]:
    """Resolve one actor against the library as the function would."""
    metadata = body.get("metadata") or {}
    name = str((body.get("spec") or {}).get("actor") or metadata.get("name") or "?")
    try:
        resolution = library.resolve(body, entries, settings)
    except FunctionError as exc:
        return [Finding(None, exc.path, ERROR, str(exc), actor=name)]
    return [
        Finding(None, "", WARNING, w, actor=name)
        for w in (*resolution.timeout_warnings, *resolution.scaling_warnings)
    ]


def check_shared_names(actors: Sequence[dict[str, Any]]) -> list[Finding]:
    """Actors of one namespace with the same `spec.actor`, or whose queues share a name.

    They would share a queue (and a Deployment), and the function refuses all but one:
    in a cluster it finds the others' Deployments (validate.ownership), here the files
    say it.
    """
    by_name: dict[tuple[str, str], list[str]] = {}
    for body in actors:
        try:
            xr = xr_model.parse(body)
        except FunctionError:
            continue  # check_actor reports it
        actor_name = xr.spec.get("actor")
        if isinstance(actor_name, str):
            by_name.setdefault((xr.namespace, actor_name), []).append(xr.name)
    # Actors of other namespaces whose queue asya-<namespace>-<actor> bears one name.
    by_queue: dict[str, list[tuple[str, str]]] = {}
    for namespace, actor_name in sorted(by_name):
        by_queue.setdefault(queues.queue_name(namespace, actor_name), []).append(
            (namespace, actor_name)
        )
    shared_queues = [
        Finding(
            None,
            "actor",
            ERROR,
            f"the queue {queue} is the queue of {len(pairs)} AsyncActors "
            f"({', '.join(f'{namespace}/{actor_name}' for namespace, actor_name in pairs)}): "
            "a queue's name cannot tell a namespace from an actor, and the function refuses "
            "all but the one whose Deployment is oldest",
            actor=pairs[-1][1],
        )
        for queue, pairs in sorted(by_queue.items())
        if len(pairs) > 1
    ]
    return shared_queues + [
        Finding(
            None,
            "actor",
            ERROR,
            f'"{actor_name}" is the actor of {len(owners)} AsyncActors in namespace '
            f'"{namespace}" ({", ".join(owners)}): they would share one queue and one '
            "Deployment, and the function refuses all but the first",
            actor=actor_name,
        )
        for (namespace, actor_name), owners in sorted(by_name.items())
        if len(set(owners)) > 1
    ]


def check_duplicates(entries: Sequence[Entry]) -> tuple[list[Entry], list[Finding]]:
    """The library with each flavor once (its first definition), and each one defined twice.

    A cluster holds one object of a kind, namespace and name: the files disagree on
    which one, and only the last applied would count.
    """
    by_identity: dict[tuple[str, str, str], list[Entry]] = {}
    for entry in entries:
        by_identity.setdefault(entry.identity, []).append(entry)
    found = [
        Finding(
            same[0].name,
            "",
            ERROR,
            f"{same[0].kind} {'/'.join(filter(None, same[0].identity[1:]))} is defined "
            f"{len(same)} times, in {', '.join(e.source for e in same)}: keep one",
        )
        for same in by_identity.values()
        if len(same) > 1
    ]
    return [same[0] for same in by_identity.values()], found


def lint(
    entries: Sequence[Entry], actors: Sequence[dict[str, Any]], settings: Input
) -> list[Finding]:
    """Every finding for a library and, optionally, actors resolved against it."""
    entries, found = check_duplicates(entries)
    found += [finding for entry in entries for finding in check_flavor(entry, settings)]
    found += check_pairs(entries)
    for body in actors:
        found += check_actor(body, entries, settings)
    found += check_shared_names(actors)
    return found
