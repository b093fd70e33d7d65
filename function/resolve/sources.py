"""Where each flavor comes from: a cluster EnvironmentConfig or a ConfigMap in the actor's namespace.

Exactly one of the two may exist for a name. A ConfigMap is a flavor
only when it carries the label `asya.sh/flavor: <name>`, sits in the actor's own
namespace, and holds the partial spec as YAML under `flavor.yaml`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from function.codec import yaml_text
from function.codec.kinds import kind_of
from function.errors import FlavorError, WaitingForFlavorsError
from function.models.requirement import Requirement
from function.resolve.provenance import Layer

FLAVOR_FILE = "flavor.yaml"
FLAVOR_LABEL = "asya.sh/flavor"
DEPRECATED_LABEL = "asya.sh/deprecated"
DEPRECATION_MESSAGE = "asya.sh/deprecation-message"


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
    def layer(self) -> Layer:
        """Its layer of a resolved spec: what provenance says set a value."""
        return Layer.of_flavor(self.name, self.source)

    @property
    def label(self) -> str:
        """How messages name it: `"gpu"`, or `"team-keys" in ConfigMap ml/team-keys`."""
        return self.layer.label


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
            f'invalid flavor data: flavor "{name}": data must be a map, got {kind_of(data)}'
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


def collect(
    wanted: Sequence[Requirement],
    fetched: Mapping[str, list[dict[str, Any]]],
    namespace: str | None,
) -> list[Flavor]:
    """Return the flavors in the actor's order, each from the one object that defines it.

    Args:
        wanted: the requirements asked for (EnvironmentConfig, and ConfigMap when
            `namespace` is set, per flavor).
        fetched: what Crossplane returned for each requirement key.
        namespace: the actor's namespace when namespace flavors are on, else None.

    Raises:
        WaitingForFlavorsError: naming every flavor defined nowhere yet.
        FlavorError: when a name is defined twice, or a ConfigMap's flavor.yaml is unreadable.
    """
    found: dict[str, list[Flavor]] = {}
    for requirement in wanted:
        for body in fetched.get(requirement.key, []):
            if requirement.kind == "ConfigMap":
                if _is_flavor(body, requirement.flavor, requirement.namespace):
                    found.setdefault(requirement.flavor, []).append(
                        from_config_map(requirement.flavor, requirement.namespace, body)
                    )
            else:
                found.setdefault(requirement.flavor, []).append(
                    from_environment_config(requirement.flavor, body)
                )
            break  # by name: one object at most
    names = list(dict.fromkeys(r.flavor for r in wanted))
    missing = [name for name in names if name not in found]
    if missing:
        raise WaitingForFlavorsError(_waiting(missing, namespace))
    for name in names:
        if len(found[name]) > 1:
            raise FlavorError(
                f'flavor "{name}" is defined both as EnvironmentConfig {name} and as '
                f"ConfigMap {namespace}/{name}; delete one of them"
            )
    return [found[name][0] for name in names]


def _waiting(missing: list[str], namespace: str | None) -> str:
    if namespace is None:
        return f"Waiting for {len(missing)} flavor EnvironmentConfigs: {', '.join(missing)}"
    plural = "" if len(missing) == 1 else "s"
    return (
        f"Waiting for {len(missing)} flavor{plural}: {', '.join(missing)} (each an "
        f"EnvironmentConfig, or a ConfigMap labelled {FLAVOR_LABEL} in namespace {namespace})"
    )


def _is_flavor(body: Mapping[str, Any], name: str, namespace: str) -> bool:
    """A ConfigMap of that name in the actor's namespace, labelled as that flavor."""
    metadata = body.get("metadata")
    if not isinstance(metadata, dict):
        return False
    labels = metadata.get("labels")
    return (
        metadata.get("name") == name
        and metadata.get("namespace") == namespace
        and isinstance(labels, dict)
        and labels.get(FLAVOR_LABEL) == name
    )


def from_config_map(name: str, namespace: str, body: Mapping[str, Any]) -> Flavor:
    """Read a flavor from its ConfigMap's `flavor.yaml`.

    Raises:
        FlavorError: naming the ConfigMap when flavor.yaml is missing, not YAML or not a map.
    """
    where = f"ConfigMap {namespace}/{name}"
    data = body.get("data")
    text = data.get(FLAVOR_FILE) if isinstance(data, dict) else None
    if text is None:
        # A typo (flavor.yml) or binaryData would otherwise apply as a flavor that sets nothing.
        keys = sorted(data) if isinstance(data, dict) else []
        has = f"its data has {', '.join(keys)}" if keys else "it has no data"
        binary = "; binaryData is not read" if body.get("binaryData") else ""
        raise FlavorError(
            f'invalid flavor data: flavor "{name}": {where} has no {FLAVOR_FILE} key '
            f"({has}{binary}): put the flavor's spec fields, as YAML, under data.{FLAVOR_FILE}"
        )
    if not isinstance(text, str):
        raise FlavorError(
            f'invalid flavor data: flavor "{name}": {where}: {FLAVOR_FILE} must be text'
        )
    try:
        spec: Any = yaml_text.load(text)
    except yaml_text.ExcessiveAliasingError as exc:
        raise FlavorError(
            f'invalid flavor data: flavor "{name}": {where}: {FLAVOR_FILE}: {exc}'
        ) from None
    except yaml.YAMLError as exc:
        problem = str(exc).splitlines()[0]
        raise FlavorError(
            f'invalid flavor data: flavor "{name}": {where}: {FLAVOR_FILE} is not YAML: {problem}'
        ) from None
    if spec is None:
        spec = {}
    if not isinstance(spec, dict):
        raise FlavorError(
            f'invalid flavor data: flavor "{name}": {where}: {FLAVOR_FILE} must be a map of '
            "AsyncActor spec fields"
        )
    if problem := yaml_text.not_json(spec):
        raise FlavorError(
            f'invalid flavor data: flavor "{name}": {where}: {FLAVOR_FILE}: {problem}'
        )
    return from_metadata(name, spec, body.get("metadata"), source=where)
