"""The resolve boundary: what an actor's flavors are looked up as, and its spec resolved from them.

The function and every tool decide both here, the same way: the function for each
request, `flavors lint` and `explain` for files (as Crossplane 2 would fetch them).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from function.models.input import Input
from function.models.requirement import Requirement
from function.models.xr import Composite
from function.resolve import layers, requirements, sources


@dataclass(frozen=True)
class Lookup:
    """Where an actor's flavors are looked for, and the requirements that ask for them."""

    # The namespace to look for namespace flavors in; None when they are off.
    namespace: str | None
    wanted: list[Requirement]

    @property
    def keys(self) -> list[str]:
        """The requirement keys, in the actor's order."""
        return [r.key for r in self.wanted]


def lookup(xr: Composite, settings: Input, *, namespaced_selectors: bool) -> Lookup:
    """How to look an actor's flavors up.

    Namespace flavors are on when the Input enables them, or, with `Auto`, where
    Crossplane honours a selector's namespace: a caller whose selectors do
    (`namespaced_selectors`: Crossplane 2 advertises required resources) or a
    namespaced XR (Crossplane 2).
    """
    mode = settings.namespaced_flavors
    on = mode == "Enabled" or (mode == "Auto" and (xr.namespaced or namespaced_selectors))
    namespace = xr.namespace if on else None
    return Lookup(namespace, requirements.for_flavors(xr.flavors, namespace))


def flavors_of(found: Lookup, fetched: Mapping[str, list[dict[str, Any]]]) -> layers.Flavors:
    """The actor's flavors, from the one object defining each, merged on their own.

    Raises:
        FunctionError: for a flavor missing, or defined twice, or unreadable.
    """
    return layers.merge_flavors(sources.collect(found.wanted, fetched, found.namespace))
