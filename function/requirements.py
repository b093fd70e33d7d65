"""Which EnvironmentConfigs to ask Crossplane for: one requirement per flavor, by name."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

API_VERSION = "apiextensions.crossplane.io/v1beta1"
KIND = "EnvironmentConfig"


@dataclass(frozen=True)
class Requirement:
    """A request for the EnvironmentConfig named after one flavor."""

    key: str
    flavor: str
    api_version: str = API_VERSION
    kind: str = KIND


def key_for(flavor: str) -> str:
    """Return the requirement key of a flavor: `flavor-<name>`."""
    return f"flavor-{flavor}"


def for_flavors(flavors: Sequence[str]) -> list[Requirement]:
    """Return the requirements for the flavors, in the actor's order (identical every call)."""
    return [Requirement(key=key_for(name), flavor=name) for name in flavors]
