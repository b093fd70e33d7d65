"""The gate: every check of a resolved actor, in one order, for the function and every tool.

Resolving says what the actor asks for; the gate refuses what it may not have (what
Kubernetes, its Pod Security level or KEDA would refuse) before anything is rendered,
and notes what it allows but a platform engineer should hear of (timeouts that
contradict each other, scaling KEDA would not do as asked).
"""

from __future__ import annotations

from dataclasses import replace

from function.models.input import Input
from function.models.xr import Composite
from function.resolve import layers
from function.validate import keda_checks, pod_security, pod_spec, timeout_checks


def admit(xr: Composite, settings: Input, flavors: layers.Flavors) -> layers.Resolution:
    """Resolve an actor over its flavors (as `actor.flavors_of` gives them), then check it.

    Raises:
        FunctionError: for a conflict the actor does not settle, or a value the gate refuses.
    """
    return check(layers.resolve_with(xr, flavors), settings)


def check(resolution: layers.Resolution, settings: Input) -> layers.Resolution:
    """Refuse a resolved actor the platform may not run; keep what only earns a warning.

    Raises:
        FunctionError: naming the field and the flavor (or the actor) that set it.
    """
    pod_security.check(settings, resolution.provenance)
    pod_spec.check(resolution.spec, settings, resolution.provenance)
    keda_checks.check(resolution.spec, resolution.provenance)
    contradicting = timeout_checks.contradictions(resolution, settings)
    unrequested = keda_checks.warnings(resolution.spec, resolution.provenance)
    if contradicting or unrequested:
        return replace(
            resolution,
            timeout_warnings=tuple(contradicting),
            scaling_warnings=tuple(unrequested),
        )
    return resolution
