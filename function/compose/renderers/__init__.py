"""Render the actor's composed resources: the transport's, then one module per resource, in order."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from function.compose.renderers import (
    deployment,
    meta,
    pod_monitor,
    scaled_object,
    service_account,
    transports,
    trigger_auth,
)
from function.models.plan import Plan

# (composition resource name, renderer); a renderer returns None to leave its resource out.
RESOURCES: tuple[tuple[str, Callable[[Plan], dict[str, Any] | None]], ...] = (
    (meta.SERVICE_ACCOUNT, service_account.render),
    (meta.TRIGGER_AUTHENTICATION, trigger_auth.render),
    (meta.SCALED_OBJECT, scaled_object.render),
    (meta.DEPLOYMENT, deployment.render),
    (meta.POD_MONITOR, pod_monitor.render),
)


def render_all(plan: Plan) -> dict[str, dict[str, Any]]:
    """Render every resource the actor needs now, keyed by composition resource name.

    Raises:
        FunctionError: when the transport cannot carry the actor's queue (its name).
    """
    transport = transports.of(plan)
    transport.refuse(plan)
    rendered = dict(transport.resources(plan))
    for name, renderer in RESOURCES:
        body = renderer(plan)
        if body is not None:
            rendered[name] = body
    return rendered
