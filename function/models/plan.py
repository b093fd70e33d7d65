"""Everything the renderers and the status stage read: one frozen bundle per call."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from function.models import queues
from function.models.input import Input
from function.models.spec import Spec
from function.models.xr import Composite


class Origin(Protocol):
    """The resolved spec as plain data, and who set each value of it (resolve.Provenance)."""

    @property
    def data(self) -> dict[str, Any]:
        """The resolved spec as plain data (the XRD's field names)."""

    def blame(self, loc: Sequence[str | int]) -> tuple[str, Any]:
        """The dotted path of a location in the data, and who set it (printed as words)."""

    def setters(self, loc: Sequence[str | int]) -> tuple[Any, ...]:
        """Everyone who set part of the value at a location (printed as words), highest first."""

    def digests(self) -> dict[str, str]:
        """A short digest of what each source set: `actor`, then each flavor by name."""


@dataclass(frozen=True)
class Plan:
    """The resolved actor, the cluster settings, and what Crossplane observed."""

    xr: Composite
    spec: Spec  # the one source of truth for the resolved spec
    settings: Input
    observed: Mapping[str, Mapping[str, Any]]  # composition resource name → observed object
    # What Crossplane fetched for the transport's own requirements (Transport.wanted), by
    # requirement key (a key absent: not asked, or not answered yet).
    transport_fetched: Mapping[str, Sequence[Mapping[str, Any]]] = field(default_factory=dict)
    # The actor's Pods, fetched while its Deployment is not fully available (None: not
    # asked, or not answered yet).
    pods: Sequence[Mapping[str, Any]] | None = None
    # KEDA's HPAs of the actor's name, asked for every actor (None: not answered yet).
    autoscalers: Sequence[Mapping[str, Any]] | None = None
    # Who set each value of the spec, for messages that say what to change.
    origin: Origin | None = None
    # The digest of the Deployment this function rendered on its last call, as the XR's
    # status says ('' for none): the v2 form's way to tell whether the API server took it.
    last_rendered: str = ""
    # Whether Crossplane's Synced condition on the XR was other than False when it was
    # read: False when Crossplane could not apply a composed resource.
    synced: bool = True

    @property
    def actor(self) -> str:
        """The actor's name, used for every object name."""
        return self.spec.actor

    @property
    def namespace(self) -> str:
        """The namespace every Kubernetes object goes to."""
        return self.xr.namespace

    @property
    def queue_name(self) -> str:
        """The actor's queue, topic or subscription, in every transport."""
        return queues.queue_name(self.namespace, self.actor)
