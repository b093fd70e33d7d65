"""What the API server would refuse in the pod about to be rendered, refused first (docs/flavors.md, "What gets refused").

The spec model checks each value on its own; this stage checks what only the pod
as a whole shows: names that collide with the platform's or each other, mounts of
volumes that do not exist, env names Kubernetes rejects. Every error names the
path and the layer (the actor or a flavor) the value came from.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from function.errors import FlavorError, SpecError
from function.models import names, pod, timeouts
from function.models.input import Input
from function.models.pod import Loc
from function.models.spec import Spec
from function.resolve.provenance import MAX_PROBLEMS, Provenance
from function.validate import env_names, kube_schemas, pod_volumes, resources


def check(spec: Spec, settings: Input, origin: Provenance) -> None:
    """Refuse a resolved spec whose pod Kubernetes would not accept.

    Every rule is checked, so that one refusal names each of the pod's problems (each
    rule its first), not only the first of them. Once they all pass, the parts of the
    pod the actor supplies are held to their Kubernetes types' schemas.

    Raises:
        FlavorError: (or its SpecError form for the actor's own values) naming the
            path and its source.
    """
    problems: list[FlavorError] = []
    try:
        volumes: pod_volumes.Volumes | None = pod_volumes.defined(origin)
    except FlavorError as exc:
        problems.append(exc)
        volumes = None  # the mounts cannot be checked against volumes that are not valid
    checks: list[Callable[[], None]] = [
        lambda: _container_names(origin),
        lambda: env_names.runtime(origin),
        lambda: env_names.sidecar(origin),
        lambda: env_names.connectors(origin),
        lambda: resources.check(origin),
        lambda: _hook_sleeps(spec, origin),
    ]
    if volumes is not None:
        defined = volumes
        checks.append(lambda: pod_volumes.runtime_mounts(spec, settings, defined, origin))
        # The sidecar's port, which the PodMonitor scrapes by its name: a second port of
        # that name in the pod would be the one a name selects, if it came first.
        reserved = {pod.METRICS_PORT_NAME} if spec.metrics.enabled else set()
        for field in ("sidecars", "initContainers"):
            for index, container in enumerate(origin.data.get(field) or []):
                checks.append(
                    functools.partial(
                        _user_container, (field, index), container, defined, reserved, origin
                    )
                )
    for run in checks:
        try:
            run()
        except FlavorError as exc:
            problems.append(exc)
    if problems:
        raise _one_error(problems)
    # Only then: the rules above say what is wrong in the pod's own words, and a part
    # they refuse (a mount without a path) would be refused here a second time.
    kube_schemas.check(origin)


def _one_error(problems: Sequence[FlavorError]) -> FlavorError:
    """One error for several: the first's kind (a flavor's, if any is), every message."""
    if len(problems) == 1:
        return problems[0]
    kind = next((type(p) for p in problems if not isinstance(p, SpecError)), SpecError)
    return kind("; ".join(str(p) for p in problems[:MAX_PROBLEMS]), path=problems[0].path)


def _container_names(origin: Provenance) -> None:
    """Every container of the pod (init containers included) has a valid name of its own."""
    data = origin.data
    named: list[tuple[str, Loc]] = [
        (pod.connector_name(proxy["name"]), ("stateProxy", index, "name"))
        for index, proxy in enumerate(data.get("stateProxy") or [])
    ]
    for field in ("sidecars", "initContainers"):
        named += [
            (str(container["name"]), (field, index, "name"))
            for index, container in enumerate(data.get(field) or [])
        ]
    seen = {pod.RUNTIME, pod.SIDECAR}
    for name, loc in named:
        if problem := names.label_problem(name):
            raise origin.refuse(loc, f"the container name {name!r} is invalid: {problem}")
        if name in seen:
            raise origin.refuse(loc, f"the container name {name!r} is used twice in the pod")
        seen.add(name)


def _user_container(
    loc: Loc,
    container: Mapping[str, Any],
    volumes: pod_volumes.Volumes,
    reserved_ports: set[str],
    origin: Provenance,
) -> None:
    """A user's sidecar or init container: an image, env names and ports of its own, mounts of the pod's volumes."""
    image = container.get("image")
    if not isinstance(image, str) or not image.strip():
        raise origin.refuse((*loc, "image"), "a container needs an image", missing=True)
    if not names.is_image(image):
        raise origin.refuse((*loc, "image"), f"must be {names.IMAGE_WORDS}")
    env = container.get("env")
    if env is not None and not isinstance(env, list):
        raise origin.refuse((*loc, "env"), "env must be a list")
    entries = [
        (item.get("name") if isinstance(item, Mapping) else None, (*loc, "env", index, "name"))
        for index, item in enumerate(env or [])
    ]
    env_names.unique(origin, entries, pod.ANY_PLATFORM_ENV, f"container {container['name']!r}")
    _port_names(origin, loc, container, reserved_ports)
    pod_volumes.container_mounts(origin, loc, container, volumes)


def _port_names(
    origin: Provenance, loc: Loc, container: Mapping[str, Any], reserved: set[str]
) -> None:
    """Refuse a port named as one of the platform's containers' ports."""
    ports = container.get("ports")
    for index, port in enumerate(ports if isinstance(ports, list) else []):
        name = port.get("name") if isinstance(port, Mapping) else None
        if name in reserved:
            raise origin.refuse(
                (*loc, "ports", index, "name"),
                f"the port name {name!r} is the Asya sidecar's metrics port, which its "
                "PodMonitor scrapes by name; choose another name",
            )


def _hook_sleeps(spec: Spec, origin: Provenance) -> None:
    """A hook's sleep ends within the pod's grace period, which the actor's timeout sets."""
    grace = timeouts.grace_period_seconds(spec.actor_timeout_seconds)
    for field in ("sidecars", "initContainers"):
        for index, container in enumerate(origin.data.get(field) or []):
            lifecycle = container.get("lifecycle") if isinstance(container, Mapping) else None
            for hook in ("postStart", "preStop"):
                seconds = pod.value_at(lifecycle, (hook, "sleep", "seconds"))
                if isinstance(seconds, int) and not 0 <= seconds <= grace:
                    raise origin.refuse(
                        (field, index, "lifecycle", hook, "sleep", "seconds"),
                        f"must be from 0 to the pod's terminationGracePeriodSeconds "
                        f"({grace}, from the actor's timeout)",
                    )
