"""Where each flavor comes from: a cluster EnvironmentConfig or a ConfigMap in the actor's namespace.

Exactly one of the two may exist for a name (SPEC §5.6). A ConfigMap is a flavor
only when it carries the label `asya.sh/flavor: <name>`, sits in the actor's own
namespace, and holds the partial spec as YAML under `flavor.yaml`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import yaml

from function.cache import ContentCache
from function.errors import FlavorError, WaitingForFlavorsError
from function.models.input import Input
from function.models.xr import Composite
from function.resolve import validate
from function.resolve.flavors import (
    FLAVOR_LABEL,
    Flavor,
    Merged,
    Resolution,
    from_environment_config,
    from_metadata,
    resolve,
)
from function.resolve.requirements import Requirement

FLAVOR_FILE = "flavor.yaml"


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
        FlavorError: naming the ConfigMap when flavor.yaml is not YAML or not a map.
    """
    where = f"ConfigMap {namespace}/{name}"
    data = body.get("data")
    text = data.get(FLAVOR_FILE) if isinstance(data, dict) else None
    if text is None:
        spec: Any = {}
    elif not isinstance(text, str):
        raise FlavorError(
            f'invalid flavor data: flavor "{name}": {where}: {FLAVOR_FILE} must be text'
        )
    else:
        try:
            spec = yaml.safe_load(text)
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
    return from_metadata(name, spec, body.get("metadata"), source=where)


def resolve_actor(
    xr: Composite,
    settings: Input,
    wanted: Sequence[Requirement],
    fetched: Mapping[str, list[dict[str, Any]]],
    namespace: str | None,
    merges: ContentCache[Merged] | None = None,
) -> Resolution:
    """Resolve an actor from what was fetched for it, then check its pod: the function's stages.

    `merges` keeps what each combination of flavors resolves to on its own.

    Raises:
        FunctionError: for a flavor missing or ambiguous, a conflict, or an invalid value.
    """
    resolution = resolve(xr, collect(wanted, fetched, namespace), merges)
    validate.check(resolution.spec, settings, resolution.provenance)
    return resolution
