"""The transports a Composition's Input may choose; each is one module."""

from __future__ import annotations

from types import ModuleType

from function.models.plan import Plan
from function.render import sqs

TRANSPORTS: dict[str, ModuleType] = {sqs.NAME: sqs}


def of(plan: Plan) -> ModuleType:
    """Return the module of the transport the Input chose."""
    return TRANSPORTS[plan.settings.transport]
