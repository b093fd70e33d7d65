"""The transport seam: what a transport (SQS, RabbitMQ, Pub/Sub) decides for one actor.

Everything else (the Deployment, the ScaledObject around its trigger, the status
block) is the same for every transport and reads the transport only through this.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from function.models.input import Input
from function.models.plan import Plan
from function.models.requirement import Requirement
from function.models.xr import Composite


@dataclass(frozen=True)
class QueueState:
    """The actor's queue as the transport sees it."""

    ready: bool
    message: str  # what it waits for; empty when ready
    url: str = ""  # status.queueUrl ('' when the transport has none)
    identifier: str = ""  # status.queueIdentifier ('' until known)
    # Where failed messages go (a dead-letter queue's ARN), or why they stay in the
    # queue ('' when the transport has no say).
    dead_letter: str = ""
    # A warning about the queue, said on every call while it holds ('' when none).
    warning: str = ""


@dataclass(frozen=True)
class Credentials:
    """How the actor's sidecar proves who it is to the broker."""

    # A Secret whose keys the sidecar reads as its env ('' when none).
    secret: str = ""
    # The actor's pods run as the IRSA ServiceAccount (AWS's pod identity).
    irsa: bool = False


class Transport(Protocol):
    """One transport's part of an actor."""

    name: str

    def wanted(self, settings: Input, xr: Composite) -> list[Requirement]:
        """What the transport asks Crossplane to fetch for an actor (Plan.transport_fetched)."""

    def refuse(self, plan: Plan) -> None:
        """Refuse an actor the transport cannot carry, before anything is rendered.

        Raises:
            FunctionError: naming what to change.
        """

    def resources(self, plan: Plan) -> dict[str, dict[str, Any]]:
        """The composed resources the transport adds (composition resource name → body)."""

    def readiness(self, plan: Plan, queue: QueueState) -> dict[str, bool]:
        """Whether each of the transport's own composed resources is ready (given the queue's state)."""

    def queue(self, plan: Plan) -> QueueState:
        """The queue's readiness, message, URL and identifier."""

    def scaler_waits_for(self, plan: Plan) -> str:
        """What the ScaledObject waits for before it may be rendered ('' when it may)."""

    def authentication(self, plan: Plan) -> dict[str, Any] | None:
        """The TriggerAuthentication spec, or None when the trigger needs none."""

    def trigger(self, plan: Plan, authentication: str | None) -> dict[str, Any]:
        """The ScaledObject's trigger (called only once the scaler waits for nothing)."""

    def sidecar_env(self, plan: Plan) -> list[dict[str, Any]]:
        """The sidecar's transport settings."""

    def credentials(self, plan: Plan) -> Credentials:
        """Where the sidecar's credentials come from: a Secret, the pod's identity, or neither."""
