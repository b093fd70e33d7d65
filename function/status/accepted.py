"""Whether the API server took the Deployment the function rendered last (the v2 form).

In the v2 form Crossplane applies each composed resource itself. One the API server
refuses is only a warning event on the XR, and its Synced condition says "some resources
were invalid, check events"; the old Deployment keeps running. So the function marks each
Deployment it renders with a digest (and a digest of each source it came from) and writes
the digest into the XR's status. When the status says that digest was rendered on the last
call, Crossplane has applied it since; if the observed Deployment still carries another
and Crossplane says it could not apply a composed resource (the XR's Synced is False:
so a cache that has not seen the new Deployment yet is not taken for a refusal), the API
server did not take it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from function.compose.renderers import meta
from function.models import observed, pod
from function.models.plan import Plan

# The workload's reason while an older Deployment runs.
REASON = "DeploymentNotAccepted"


def marks(body: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """The function's marks on a Deployment ({} for none)."""
    found = observed.dig(body, "metadata", "annotations")
    return found if isinstance(found, Mapping) else {}


def refusal(plan: Plan, rendered: Mapping[str, Any] | None) -> str:
    """Why the actor still runs an older Deployment ('' when it runs the last one, or cannot tell)."""
    body = plan.observed.get(meta.DEPLOYMENT)
    if body is None or rendered is None or plan.synced or observed.is_wrapped(body):
        return ""
    new = marks(rendered).get(pod.RENDERED_ANNOTATION)
    running = marks(body)
    if not new or new != plan.last_rendered or running.get(pod.RENDERED_ANNOTATION) == new:
        return ""
    changed = _changed(
        _sources(running.get(pod.RENDERED_FROM_ANNOTATION)),
        _sources(marks(rendered).get(pod.RENDERED_FROM_ANNOTATION)),
    )
    return (
        "the API server has not accepted the actor's new Deployment, and the one running "
        f"was rendered before {changed}; `kubectl describe asyncactor {plan.xr.name} -n "
        f"{plan.namespace}` shows Crossplane's event with the API server's words"
    )


def _sources(text: Any) -> dict[str, str]:
    """`actor=1a2b,gpu=3c4d` → {"actor": "1a2b", "gpu": "3c4d"}."""
    if not isinstance(text, str):
        return {}
    pairs = (item.partition("=") for item in text.split(",") if item)
    return {name: value for name, _, value in pairs}


def _changed(before: dict[str, str], now: dict[str, str]) -> str:
    """What changed between the sources of two renders, in words."""
    words = []
    for name in [*now, *(n for n in before if n not in now)]:
        if before.get(name) == now.get(name):
            continue
        what = "the actor's spec" if name == "actor" else f'flavor "{name}"'
        if name not in before and before:
            what += " (added)"
        elif name not in now:
            what += " (removed)"
        words.append(what)
    if not before:
        return "the function marked its renders"
    if not words:
        return "a change of the Composition's Input or of the function (no flavor or spec changed)"
    return "these changed: " + ", ".join(words)
