"""What the platform puts in every actor's pod: container, volume and env names, mount paths.

The renderers build the pod from these names and the validation stage keeps users
off them, so a name is reserved exactly where it is used.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from typing import Any, Literal

from function.models.plain import MAP

Loc = tuple[str | int, ...]

# Every object of an actor carries its name under this label.
ACTOR_LABEL = "asya.sh/actor"
# On a v2 actor's Deployment: a digest of it as rendered, and of each source it was
# rendered from (`actor=<digest>,<flavor>=<digest>`): how the status tells whether the
# API server took the last one (status/accepted.py).
RENDERED_ANNOTATION = "asya.sh/rendered"
RENDERED_FROM_ANNOTATION = "asya.sh/rendered-from"
# And its part under this one: the Deployment (and its Object, in the v1 form) is the actor.
COMPONENT_LABEL = "app.kubernetes.io/component"
WORKLOAD_COMPONENT = "actor"

# On the pods of an actor whose sidecar serves metrics: what a PodMonitor selects.
METRICS_LABEL = "asya.sh/metrics"
# Where upstream's sidecar serves its metrics (ASYA_METRICS_ADDR `:8080`), by the name a
# PodMonitor scrapes.
SIDECAR_METRICS_PORT = 8080
METRICS_PORT_NAME = "metrics"
RUNTIME = "asya-runtime"
SIDECAR = "asya-sidecar"
CONNECTOR_PREFIX = "asya-state-proxy-"
# User containers may not start with it (the platform's containers all do).
RESERVED_CONTAINER_PREFIX = "asya-"
# How a container the platform renders pulls its image: the runtime's, the sidecar's, a
# connector's. Never empty (Kubernetes' own default by the image tag is not offered).
PullPolicy = Literal["Always", "IfNotPresent", "Never"]

SOCKET_VOLUME = "socket-dir"
TMP_VOLUME = "tmp"
RUNTIME_VOLUME = "asya-runtime"
STATE_VOLUME = "state-sockets"
# The platform's volumes by their source, as the Deployment renders them; the state
# sockets' only in a pod with a state proxy.
PLATFORM_VOLUME_SOURCES = {
    SOCKET_VOLUME: "emptyDir",
    TMP_VOLUME: "emptyDir",
    RUNTIME_VOLUME: "configMap",
    STATE_VOLUME: "emptyDir",
}
PLATFORM_VOLUMES = frozenset(PLATFORM_VOLUME_SOURCES)

TMP_PATH = "/tmp"  # noqa: S108  # The pod's own emptyDir.
STATE_SOCKETS = "/var/run/asya/state"

# Env vars the platform sets on the runtime container.
RUNTIME_ENV = frozenset(
    {"ASYA_HANDLER", "ASYA_SOCKET_DIR", "ASYA_ENABLE_VALIDATION", "ASYA_STATE_PROXY_MOUNTS"}
)
# Every env var the platform may set on the sidecar, for every transport and at every
# stage of an actor's life (ASYA_QUEUE_URL only once the queue has its URL): a name is
# refused in `sidecar.env` whether or not the platform sets it yet.
SIDECAR_ENV = frozenset(
    {
        "ASYA_SOCKET_DIR",
        "ASYA_ACTOR_NAME",
        "ASYA_NAMESPACE",
        "ASYA_ACTOR_SINK",
        "ASYA_ACTOR_SUMP",
        "ASYA_ACTOR_HAPPY_END",
        "ASYA_ACTOR_ERROR_END",
        "ASYA_IS_END_ACTOR",
        "ASYA_TRANSPORT",
        "ASYA_AWS_REGION",
        "ASYA_QUEUE_URL",
        "ASYA_SQS_ENDPOINT",
        "ASYA_RABBITMQ_URL",
        "ASYA_PUBSUB_PROJECT_ID",
        "ASYA_PUBSUB_ENDPOINT",
        "ASYA_RESILIENCY_POLICIES",
        "ASYA_RESILIENCY_RULES",
        "ASYA_RESILIENCY_ACTOR_TIMEOUT",
        # Set from `metrics` and the Input's: configure metrics there.
        "ASYA_METRICS_ENABLED",
        "ASYA_METRICS_ADDR",
        "ASYA_CUSTOM_METRICS",
        # Set from `tracing`: configure tracing there.
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "OTEL_EXPORTER_OTLP_PROTOCOL",
    }
)
# The one sidecar env var an actor's `sidecar.env` replaces instead of being refused.
OVERRIDABLE_SIDECAR_ENV = frozenset({"ASYA_LOG_LEVEL"})
# Env vars the platform sets on each state-proxy connector.
CONNECTOR_ENV = frozenset({"CONNECTOR_SOCKET"})
# Refused in the user's own sidecars and init containers: they share the pod.
ANY_PLATFORM_ENV = RUNTIME_ENV | SIDECAR_ENV | OVERRIDABLE_SIDECAR_ENV | CONNECTOR_ENV


def normal_path(path: str) -> str:
    """The directory a path names: without `.`, `..` and repeated slashes (`//tmp` is `/tmp`).

    POSIX lets a path keep two leading slashes, and posixpath.normpath does; Linux reads
    them as one.
    """
    if not path:
        return path
    return posixpath.normpath("/" + path.lstrip("/") if path.startswith("/") else path)


def platform_volumes(state_proxy: bool) -> dict[str, str]:
    """The platform's volumes in a pod (by name → source), with or without a state proxy."""
    return {
        name: source
        for name, source in PLATFORM_VOLUME_SOURCES.items()
        if state_proxy or name != STATE_VOLUME
    }


def connector_name(proxy: str) -> str:
    """The container that serves a state proxy."""
    return f"{CONNECTOR_PREFIX}{proxy}"


def container_places(data: Mapping[str, Any]) -> list[Loc]:
    """Where a spec configures each container it supplies settings for, the runtime's first.

    The runtime's settings are the spec's own (`resources`, `env`); the sidecar's are under
    `sidecar`, a state proxy's connector's under its entry, the user's own containers'
    under theirs.
    """
    places: list[Loc] = [(), ("sidecar",)]
    places += [("stateProxy", index, "connector") for index in _indexes(data, "stateProxy")]
    for field in ("initContainers", "sidecars"):
        places += [(field, index) for index in _indexes(data, field)]
    return places


def _indexes(data: Mapping[str, Any], field: str) -> range:
    items = data.get(field)
    return range(len(items)) if isinstance(items, list) else range(0)


def value_at(data: Any, loc: Loc) -> Any:
    """The value at a location of plain data (None where the location breaks off)."""
    for step in loc:
        if isinstance(step, int):
            data = data[step] if isinstance(data, list) and step < len(data) else None
        else:
            data = data.get(step) if isinstance(data, MAP) else None
    return data
