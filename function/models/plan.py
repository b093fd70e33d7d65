"""Everything the renderers and the status stage read: one frozen bundle per call."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from function.models.input import Input
from function.models.spec import Spec
from function.models.xr import Composite


@dataclass(frozen=True)
class Plan:
    """The resolved actor, the cluster settings, and what Crossplane observed."""

    xr: Composite
    spec: Spec  # the one source of truth for the resolved spec
    settings: Input
    observed: Mapping[str, Mapping[str, Any]]  # composition resource name → observed object
    # The objects Crossplane fetched for the namespace's dead-letter queue (None: not
    # asked, or not answered yet).
    dead_letter_queues: Sequence[Mapping[str, Any]] | None = None

    @property
    def actor(self) -> str:
        """The actor's name, used for every object name."""
        return self.spec.actor

    @property
    def namespace(self) -> str:
        """The namespace every Kubernetes object goes to."""
        return self.xr.namespace
