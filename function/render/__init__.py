"""Render the actor's composed resources: one module per resource, registered here in order."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from function.models.plan import Plan
from function.render import (
    deployment,
    meta,
    scaled_object,
    service_account,
    transports,
    trigger_auth,
)


def _queue(plan: Plan) -> dict[str, Any] | None:
    queue: dict[str, Any] = transports.of(plan).queue(plan)
    return queue


# (composition resource name, renderer); a renderer returns None to leave its resource out.
RESOURCES: tuple[tuple[str, Callable[[Plan], dict[str, Any] | None]], ...] = (
    (meta.QUEUE, _queue),
    (meta.SERVICE_ACCOUNT, service_account.render),
    (meta.TRIGGER_AUTHENTICATION, trigger_auth.render),
    (meta.SCALED_OBJECT, scaled_object.render),
    (meta.DEPLOYMENT, deployment.render),
)


def render_all(plan: Plan) -> dict[str, dict[str, Any]]:
    """Render every resource the actor needs now, keyed by composition resource name."""
    rendered = {}
    for name, renderer in RESOURCES:
        body = renderer(plan)
        if body is not None:
            rendered[name] = body
    return rendered
