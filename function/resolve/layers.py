"""Layering: function defaults, then the flavors merged in order, then the actor's own spec."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from function.errors import FlavorError, MergeConflictError, SpecError
from function.models import spec as spec_model
from function.models.xr import CROSSPLANE_MACHINERY, Composite
from function.resolve import limits, merge, paths
from function.resolve.provenance import ACTOR, Provenance
from function.resolve.sources import Flavor

IGNORED_IN_FLAVORS = frozenset(spec_model.INFRASTRUCTURE_FIELDS) | CROSSPLANE_MACHINERY


@dataclass(frozen=True)
class Resolution:
    """The resolved spec (validated and typed), where its values came from, the flavors applied.

    `data` is the same spec as plain data, exactly what was validated: strict models
    that refuse unknown and differently spelled keys hold it unchanged, so it equals
    `as_data(spec)` without the cost of dumping the model. The resolve memo shares
    it between calls: read it, never write into it.
    """

    spec: spec_model.Spec
    data: dict[str, Any]
    provenance: Provenance
    applied: tuple[str, ...]
    warnings: tuple[str, ...] = field(default=())
    # Timeouts that contradict the actor's (resolve.timeouts), said as warnings too.
    timeout_warnings: tuple[str, ...] = field(default=())
    # What KEDA may refuse, and settings it leaves out (validate.keda_checks).
    scaling_warnings: tuple[str, ...] = field(default=())


def _without_ignored(flavor: Flavor, warnings: list[str]) -> dict[str, Any]:
    ignored = sorted(key for key in flavor.data if key in IGNORED_IN_FLAVORS)
    warnings.extend(
        f"flavor {flavor.label} sets {key}, which a flavor cannot set; ignored" for key in ignored
    )
    return {key: value for key, value in flavor.data.items() if key not in IGNORED_IN_FLAVORS}


def _with_state_proxy_defaults(data: dict[str, Any]) -> None:
    items = data.get("stateProxy")
    if isinstance(items, list):
        data["stateProxy"] = [
            merge.overlay(spec_model.STATE_PROXY_DEFAULTS, item) if isinstance(item, dict) else item
            for item in items
        ]


@dataclass(frozen=True)
class Flavors:
    """An actor's flavors on their own, before its spec: the same for every actor listing them.

    Kept by the resolve memo and shared by every call that lists the same flavors:
    nothing in it may be written into.
    """

    fetched: tuple[Flavor, ...]
    # (name, data) per flavor in the actor's order, without the keys a flavor cannot set.
    layers: tuple[tuple[str, dict[str, Any]], ...]
    # How messages name each flavor.
    labels: dict[str, str]
    # Deprecated flavors, and keys a flavor set and cannot.
    warnings: tuple[str, ...]
    # The defaults with the flavors merged with each other laid over them, frozen
    # (merge.frozen); None when two flavors clash (the actor may settle it).
    merged: bytes | None
    # Why a flavor nests too deeply: refused once the actor's own nesting is checked.
    # A message, not the error: an error raised again on every call would keep a
    # longer traceback each time.
    too_deep: str = ""


def merge_flavors(fetched: Sequence[Flavor]) -> Flavors:
    """Merge and check the flavors without the actor.

    Merging without the actor gives what merging with it would whenever no two
    flavors clash: the actor's spec only decides clashes.
    """
    warnings = [
        f"flavor {f.label} is deprecated: {f.deprecation_message or 'no reason given'}"
        for f in fetched
        if f.deprecated
    ]
    labels = {f.name: f.label for f in fetched}
    ignored: list[str] = []
    layers = tuple((f.name, _without_ignored(f, ignored)) for f in fetched)
    warnings.extend(ignored)
    try:
        _check_layer_nesting(layers, labels)
    except FlavorError as exc:
        return Flavors(tuple(fetched), layers, labels, tuple(warnings), None, str(exc))
    try:
        merged: bytes | None = merge.frozen(
            merge.overlay(spec_model.DEFAULTS, merge.merge_flavors(layers, labels=labels))
        )
    except MergeConflictError:
        merged = None
    return Flavors(tuple(fetched), layers, labels, tuple(warnings), merged)


def resolve(xr: Composite, fetched: Sequence[Flavor]) -> Resolution:
    """Layer function defaults, the flavors (in the actor's order) and the actor's spec.

    Raises:
        MergeConflictError: when two flavors set the same leaf.
        FlavorError: when the result is invalid, naming the path and the flavor
            that set the value.
        SpecError: when the actor's own spec is invalid, naming the path.
    """
    return resolve_with(xr, merge_flavors(fetched))


def resolve_with(xr: Composite, flavors: Flavors) -> Resolution:
    """Layer function defaults, the flavors merged on their own and the actor's spec.

    Raises:
        MergeConflictError: when two flavors set the same leaf and the actor does not.
        FlavorError: when the result is invalid, naming the path and the flavor
            that set the value.
        SpecError: when the actor's own spec is invalid, naming the path.
    """
    actor = {k: v for k, v in xr.spec.items() if k not in spec_model.INFRASTRUCTURE_FIELDS}
    _check_actor_nesting(actor)
    if flavors.too_deep:
        raise FlavorError(flavors.too_deep)
    if flavors.merged is None:
        data = merge.layered(spec_model.DEFAULTS, flavors.layers, actor, flavors.labels)
    else:
        data = merge.actor_over(flavors.merged, actor)
    _with_state_proxy_defaults(data)
    identity: dict[str, Any] = {k: xr.spec[k] for k in ("actor", "flavors") if k in xr.spec}
    data |= identity
    by_name = {f.name: f.layer for f in flavors.fetched}
    provenance = Provenance(
        data,
        ((ACTOR, actor | identity), *((by_name[name], layer) for name, layer in flavors.layers)),
    )
    try:
        model = spec_model.Spec.model_validate(data)
    except ValidationError as exc:
        raise provenance.invalid(exc) from None
    return Resolution(
        spec=model,
        data=data,
        provenance=provenance,
        applied=tuple(f.name for f in flavors.fetched),
        warnings=flavors.warnings,
    )


TOO_DEEP = f"nests more than {limits.MAX_NESTING} levels deep"


def _check_actor_nesting(actor: dict[str, Any]) -> None:
    """Refuse an actor spec nested so deeply that the objects built from it could not be decoded."""
    path = limits.too_deep(actor)
    if path is not None:
        raise SpecError(f"invalid actor spec: {paths.dotted(path)}: {TOO_DEEP}")


def _check_layer_nesting(
    layers: Sequence[tuple[str, dict[str, Any]]], labels: Mapping[str, str]
) -> None:
    """Refuse flavor data nested as deeply (checked after the actor's)."""
    for name, layer in layers:
        path = limits.too_deep(layer)
        if path is not None:
            raise FlavorError(
                f"invalid flavor data: {paths.dotted(path)}: {TOO_DEEP} (from flavor {labels[name]})"
            )
