"""Where in the actor's spec each part of its pod comes from, and who set it.

A message about a container (its image, its memory limit, a Secret it cannot find)
names the spec field to change and its source: the actor, a flavor, a default, or
the Composition's Input.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from function.compose.renderers import containers
from function.models import observed, pod
from function.models.plan import Plan

INPUT = "the Composition's Input"
# How the kubelet names the object a container cannot find.
_MISSING_OBJECT = (
    re.compile(r'(?P<kind>secret|configmap) "(?P<name>[^"]+)" not found', re.IGNORECASE),
    re.compile(r"in (?P<kind>Secret|ConfigMap) [^/\s]+/(?P<name>[^\s,;]+)"),
)
# Extended resources (GPUs and the like) are asked for as limits, which requests follow.
_PLACEMENT_RESOURCES = ("requests", "limits")
_AFFINITY = {
    "nodeAffinity": "node affinity",
    "podAffinity": "pod affinity",
    "podAntiAffinity": "pod anti-affinity",
}


def _data(plan: Plan) -> Mapping[str, Any]:
    return plan.origin.data if plan.origin is not None else {}


def _source(plan: Plan, loc: tuple[str | int, ...]) -> tuple[str, str]:
    """(dotted path, who set it) of a location in the resolved spec."""
    if plan.origin is None:
        return ".".join(str(step) for step in loc), "the actor's spec"
    path, layer = plan.origin.blame(loc)
    return path, str(layer)


@dataclass(frozen=True)
class ContainerSettings:
    """Where a container's settings live in the spec (`loc`, empty for the runtime)."""

    loc: tuple[str | int, ...]
    # None for the sidecar without its own image: the Input sets it.
    image_loc: tuple[str | int, ...] | None

    def field(self, *keys: str) -> str:
        """How messages name one of the container's fields, set or not: `sidecar.resources`."""
        text = ""
        for step in (*self.loc, *keys):
            text += f"[{step}]" if isinstance(step, int) else (f".{step}" if text else step)
        return text

    def resource(self, plan: Plan, kind: str, name: str) -> tuple[str, str, str] | None:
        """(value, path, who set it) of one of the container's resources, or None when unset."""
        loc = (*self.loc, "resources", kind, name)
        value = pod.value_at(_data(plan), loc)
        if value is None:
            return None
        return (str(value), *_source(plan, loc))

    def image(self, plan: Plan) -> tuple[str, str, str]:
        """(the image, the field that sets it, who set it)."""
        if self.image_loc is None:
            image, _ = containers.sidecar_image(plan)
            return image, "sidecar.image", INPUT
        image = pod.value_at(_data(plan), self.image_loc)
        if self.loc == ("sidecar",):
            image, _ = containers.sidecar_image(plan)
        return (str(image), *_source(plan, self.image_loc))


def of_container(plan: Plan, name: str) -> ContainerSettings | None:
    """Where a container of the actor's pod is configured (None for one the actor does not own)."""
    if name == pod.RUNTIME:
        return ContainerSettings((), ("image",))
    if name == pod.SIDECAR:
        own = pod.value_at(_data(plan), ("sidecar", "image")) is not None
        return ContainerSettings(("sidecar",), ("sidecar", "image") if own else None)
    data = _data(plan)
    for index, proxy in enumerate(observed.as_list(data.get("stateProxy"))):
        if isinstance(proxy, Mapping) and pod.connector_name(str(proxy.get("name"))) == name:
            loc: tuple[str | int, ...] = ("stateProxy", index, "connector")
            return ContainerSettings(loc, (*loc, "image"))
    for field in ("sidecars", "initContainers"):
        for index, container in enumerate(observed.as_list(data.get(field))):
            if isinstance(container, Mapping) and container.get("name") == name:
                return ContainerSettings((field, index), (field, index, "image"))
    return None


def _references(data: Mapping[str, Any]) -> Iterator[tuple[tuple[str | int, ...], str, str]]:
    """Every Secret or ConfigMap the spec names: (location, kind, name)."""
    for index, ref in enumerate(observed.as_list(data.get("secretRefs"))):
        if isinstance(ref, Mapping):
            yield ("secretRefs", index, "secretName"), "secret", str(ref.get("secretName"))
    places: list[tuple[str | int, ...]] = [()]
    places += [("sidecars", i) for i, _ in enumerate(observed.as_list(data.get("sidecars")))]
    places += [
        ("initContainers", i) for i, _ in enumerate(observed.as_list(data.get("initContainers")))
    ]
    for place in places:
        for index, var in enumerate(observed.as_list(pod.value_at(data, (*place, "env")))):
            for ref, kind in (("secretKeyRef", "secret"), ("configMapKeyRef", "configmap")):
                name = observed.dig(var, "valueFrom", ref, "name")
                if isinstance(name, str):
                    yield (*place, "env", index, "valueFrom", ref, "name"), kind, name
        for index, source in enumerate(observed.as_list(pod.value_at(data, (*place, "envFrom")))):
            for ref, kind in (("secretRef", "secret"), ("configMapRef", "configmap")):
                name = observed.dig(source, ref, "name")
                if isinstance(name, str):
                    yield (*place, "envFrom", index, ref, "name"), kind, name
    for index, volume in enumerate(observed.as_list(data.get("volumes"))):
        for field, key, kind in (
            ("secret", "secretName", "secret"),
            ("configMap", "name", "configmap"),
        ):
            name = observed.dig(volume, field, key)
            if isinstance(name, str):
                yield ("volumes", index, field, key), kind, name


def naming(plan: Plan, kubelet_message: str) -> str:
    """Which spec entries name the Secret or ConfigMap the kubelet cannot find, and who set them."""
    for pattern in _MISSING_OBJECT:
        found = pattern.search(kubelet_message)
        if found is None:
            continue
        kind, name = found["kind"].lower(), found["name"]
        entries = [
            "{}, from {}".format(*_source(plan, loc))
            for loc, their_kind, their_name in _references(_data(plan))
            if their_kind == kind and their_name == name
        ]
        if kind == "secret" and plan.settings.sidecar.aws_creds_secret == name:
            entries.append(f"sidecar.awsCredsSecret, from {INPUT}")
        if entries:
            return "named by " + "; ".join(entries)
    return ""


def _setters(plan: Plan, loc: tuple[str | int, ...]) -> list[str]:
    """Every layer that set something at a location, in the order the actor lists them."""
    if plan.origin is None:
        return ["the actor's spec"]
    return [str(layer) for layer in plan.origin.setters(loc)] or [_source(plan, loc)[1]]


def placement(plan: Plan) -> str:
    """What the runtime asks of a node, and who set it: resources, nodeSelector, affinity, tolerations."""
    data = _data(plan)
    asks: list[str] = []
    seen: set[str] = set()
    for kind in _PLACEMENT_RESOURCES:
        wanted = observed.dig(data, "resources", kind)
        # Sorted: a map read from protobuf has no order of its own, and the words must
        # not change from one call to the next.
        for name, value in sorted(wanted.items() if isinstance(wanted, Mapping) else ()):
            # A limit counts for placement only where no request is set (extended resources).
            if name in seen:
                continue
            seen.add(name)
            path, source = _source(plan, ("resources", kind, name))
            asks.append(f"{name}: {value} ({path}, from {source})")
    selector = data.get("nodeSelector")
    for name, value in sorted(selector.items() if isinstance(selector, Mapping) else ()):
        path, source = _source(plan, ("nodeSelector", name))
        asks.append(f"node {name}={value} ({path}, from {source})")
    affinity = data.get("affinity")
    for kind in sorted(affinity if isinstance(affinity, Mapping) else ()):
        # Merged key by key: every layer that set part of it.
        setters = _setters(plan, ("affinity", kind))
        asks.append(f"{_AFFINITY.get(kind, kind)} (affinity.{kind}, from {', '.join(setters)})")
    tolerations = observed.as_list(data.get("tolerations"))
    if tolerations:
        sources = sorted({_source(plan, ("tolerations", i))[1] for i in range(len(tolerations))})
        count = len(tolerations)
        asks.append(f"{count} toleration{'' if count == 1 else 's'} (from {', '.join(sources)})")
    return ", ".join(asks)


# A field path in the API server's refusal of the Deployment (provider-kubernetes copies
# it into the wrapping Object's Synced condition): a container's field, or the pod's.
_REFUSED = re.compile(
    r"spec\.template\.spec\.(?:(?P<list>containers|initContainers)\[(?P<index>\d+)\]\.)?"
    r"(?P<rest>[A-Za-z][\w]*(?:\[\d+\]|\.[A-Za-z][\w]*)*)"
)
_STEP = re.compile(r"\[(\d+)\]|\.?([A-Za-z]\w*)")
# The pod's fields an actor sets under these names (the rest under their own).
_POD_FIELDS = {"securityContext": "podSecurityContext"}
# The runtime's fields that are the actor's as they stand (its env and mounts have the
# platform's entries first, so their indexes are not the spec's).
_RUNTIME_OWN = ("securityContext", "envFrom", "resources")


def refused_field(plan: Plan, body: Mapping[str, Any] | None, message: str) -> str:
    """The spec field behind the path the API server refused, and who set it ('' if none is).

    In the v1 form the Deployment is a manifest of provider-kubernetes' Object, which
    carries the API server's refusal with its field path: `sidecars[debug].ports[0].
    hostPort, from flavor "x"` is what the actor's owner can change.
    """
    found = _REFUSED.search(message)
    if found is None:
        return ""
    steps: list[str | int] = [
        int(index) if index else name for index, name in _STEP.findall(found["rest"])
    ]
    if found["list"]:
        listed = observed.dig(body, "spec", "forProvider", "manifest", "spec", "template", "spec")
        containers_ = observed.as_list(observed.dig(listed, found["list"]))
        at = int(found["index"])
        container = containers_[at] if at < len(containers_) else None
        settings = (
            of_container(plan, str(container.get("name")))
            if isinstance(container, Mapping)
            else None
        )
        if settings is None or (not settings.loc and steps[0] not in _RUNTIME_OWN):
            return ""
        loc: tuple[str | int, ...] = (*settings.loc, *steps)
    else:
        loc = (_POD_FIELDS.get(str(steps[0]), str(steps[0])), *steps[1:])
    # Only a field the actor or a flavor set: the rest is the platform's own.
    while loc and pod.value_at(_data(plan), loc) is None:
        loc = loc[:-1]
    if not loc:
        return ""
    return "{}, from {}".format(*_source(plan, loc))
