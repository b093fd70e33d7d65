"""Resolve an actor's spec: defaults, then its flavors merged in order, then the actor itself."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from function.cache import ContentCache
from function.errors import FlavorError, MergeConflictError, SpecError
from function.models import spec as spec_model
from function.models.xr import CROSSPLANE_MACHINERY, Composite
from function.resolve import limits, merge, paths
from function.resolve.provenance import ACTOR, Provenance

FLAVOR_LABEL = "asya.sh/flavor"
DEPRECATED_LABEL = "asya.sh/deprecated"
DEPRECATION_MESSAGE = "asya.sh/deprecation-message"
IGNORED_IN_FLAVORS = frozenset(spec_model.INFRASTRUCTURE_FIELDS) | CROSSPLANE_MACHINERY


@dataclass(frozen=True)
class Flavor:
    """One fetched flavor: its name, data and what the object defining it says about it."""

    name: str
    data: dict[str, Any]
    deprecated: bool = False
    deprecation_message: str = ""
    # The object it came from when it is not the EnvironmentConfig of its name.
    source: str = ""

    @property
    def label(self) -> str:
        """How messages name it: `"gpu"`, or `"team-keys" in ConfigMap ml/team-keys`."""
        return f'"{self.name}"' + (f" in {self.source}" if self.source else "")


@dataclass(frozen=True)
class Resolution:
    """The resolved spec (validated and typed), where its values came from, the flavors applied.

    `data` is the same spec as plain data, exactly what was validated: strict models
    that refuse unknown and differently spelled keys hold it unchanged, so it equals
    `as_data(spec)` without the cost of dumping the model. It may share maps with
    the cached flavors: read it, never write into it.
    """

    spec: spec_model.Spec
    data: dict[str, Any]
    provenance: Provenance
    applied: tuple[str, ...]
    warnings: tuple[str, ...] = field(default=())


def from_environment_config(name: str, body: dict[str, Any]) -> Flavor:
    """Read a flavor from its EnvironmentConfig.

    Raises:
        FlavorError: when `data` is present but not a map.
    """
    data = body.get("data")
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise FlavorError(
            f'invalid flavor data: flavor "{name}": data must be a map, got {merge.type_name(data)}'
        )
    return from_metadata(name, data, body.get("metadata"))


def from_metadata(name: str, data: dict[str, Any], metadata: Any, *, source: str = "") -> Flavor:
    """A flavor of this data, deprecated as its object's metadata says."""
    metadata = _map(metadata)
    labels, annotations = _map(metadata.get("labels")), _map(metadata.get("annotations"))
    # The seed: "add a label or annotation" — either marks a flavor deprecated.
    marks = (labels.get(DEPRECATED_LABEL), annotations.get(DEPRECATED_LABEL))
    return Flavor(
        name=name,
        data=data,
        deprecated=any(str(mark).lower() == "true" for mark in marks if mark is not None),
        deprecation_message=str(annotations.get(DEPRECATION_MESSAGE, "")),
        source=source,
    )


def _map(value: Any) -> dict[str, Any]:
    """Metadata the function only reads for hints: anything but a map reads as empty."""
    return value if isinstance(value, dict) else {}


@dataclass(frozen=True)
class Merged:
    """What the flavors resolve to on their own, before the actor: shared by every actor using them.

    Held in a cache, so nothing in it may be mutated.
    """

    # (name, data) per flavor in the actor's order, without the keys a flavor cannot set.
    layers: tuple[tuple[str, dict[str, Any]], ...]
    # A warning for each key a flavor set and cannot.
    ignored: tuple[str, ...]
    # The flavors merged, or None when two of them clash: the actor may settle that.
    merged: dict[str, Any] | None


def merge_alone(fetched: Sequence[Flavor]) -> Merged:
    """Merge the flavors on their own.

    Merging without the actor gives what merging with it would whenever no two
    flavors clash: the actor's spec only decides clashes. A clash leaves `merged`
    None, for the caller to merge again with the actor.

    Raises:
        FlavorError: when a flavor nests too deeply.
    """
    return _merge_alone(fetched)


def _merge_alone(fetched: Sequence[Flavor]) -> Merged:
    ignored: list[str] = []
    layers = tuple((f.name, _without_ignored(f, ignored)) for f in fetched)
    labels = {f.name: f.label for f in fetched}
    _check_layer_nesting(layers, labels)
    try:
        merged: dict[str, Any] | None = merge.merge_flavors(layers, labels=labels)
    except MergeConflictError:
        merged = None
    return Merged(layers=layers, ignored=tuple(ignored), merged=merged)


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


def resolve(
    xr: Composite, fetched: Sequence[Flavor], merges: ContentCache[Merged] | None = None
) -> Resolution:
    """Layer function defaults, the flavors (in the actor's order) and the actor's spec.

    `merges` keeps what the flavors resolve to on their own, for every actor using
    the same ones.

    Raises:
        MergeConflictError: when two flavors set the same leaf.
        FlavorError: when the result is invalid, naming the path and the flavor
            that set the value.
        SpecError: when the actor's own spec is invalid, naming the path.
    """
    warnings = [
        f"flavor {f.label} is deprecated: {f.deprecation_message or 'no reason given'}"
        for f in fetched
        if f.deprecated
    ]
    labels = {f.name: f.label for f in fetched}
    actor = {k: v for k, v in xr.spec.items() if k not in spec_model.INFRASTRUCTURE_FIELDS}
    _check_actor_nesting(actor)
    alone = merge_alone(fetched)
    warnings.extend(alone.ignored)
    layers = alone.layers
    merged = alone.merged
    if merged is None:
        merged = merge.merge_flavors(layers, settled=actor, labels=labels)
    data = merge.layered(spec_model.DEFAULTS, merged, actor)
    _with_state_proxy_defaults(data)
    identity: dict[str, Any] = {k: xr.spec[k] for k in ("actor", "flavors") if k in xr.spec}
    data |= identity
    provenance = Provenance(
        data,
        (
            (ACTOR, actor | identity),
            *((f"flavor {labels[name]}", layer) for name, layer in layers),
        ),
    )
    try:
        model = spec_model.Spec.model_validate(data)
    except ValidationError as exc:
        raise provenance.invalid(exc) from None
    return Resolution(
        spec=model,
        data=data,
        provenance=provenance,
        applied=tuple(f.name for f in fetched),
        warnings=tuple(warnings),
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
