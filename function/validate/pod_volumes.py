"""The pod's volumes, and the mounts and block devices of its containers that use them.

The platform's invariants (docs/flavors.md, "What gets refused"): volumes named once, none named as the
platform's; each mount and device of a volume the pod has, at a path of its own and
off the platform's paths. validate runs these with the pod's other checks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from function.models import names, pod
from function.models.input import Input
from function.models.plain import MAP
from function.models.pod import Loc
from function.models.spec import Spec
from function.resolve.provenance import Provenance

# Each volume of the pod by name → its source ("" for none: Kubernetes makes it an emptyDir).
Volumes = Mapping[str, str]


def defined(origin: Provenance) -> dict[str, str]:
    """The pod's volumes: the platform's and the spec's, each valid and named once."""
    found = pod.platform_volumes(bool(origin.data.get("stateProxy")))
    for index, volume in enumerate(origin.data.get("volumes") or []):
        loc: Loc = ("volumes", index, "name")
        name = volume.get("name") if isinstance(volume, MAP) else None
        if not isinstance(name, str) or not name:
            raise origin.refuse(loc[:2], "a volume needs a name")
        if problem := names.label_problem(name):
            raise origin.refuse(loc, f"{name!r} is not a valid volume name: {problem}")
        if name in pod.PLATFORM_VOLUMES:
            raise origin.refuse(loc, f"{name!r} is a volume the platform adds; pick another name")
        if name in found:
            raise origin.refuse(loc, f"the volume {name!r} is defined twice")
        sources = sorted(
            key for key, value in volume.items() if key != "name" and value is not None
        )
        if len(sources) > 1:
            raise origin.refuse(
                loc[:2],
                f"a volume has one source; {name!r} has {len(sources)}: {', '.join(sources)}",
            )
        found[name] = sources[0] if sources else ""
        _ungated(origin, index, volume)
    return found


# Projections behind a feature gate: a cluster without it drops them without a word (the
# volume then lacks the files), one with it refuses what the schema says it may lack.
GATED_PROJECTIONS = ("clusterTrustBundle", "podCertificate")


def _ungated(origin: Provenance, index: int, volume: Mapping[str, Any]) -> None:
    """Refuse a projected volume's source the function does not pass on (GATED_PROJECTIONS)."""
    projected = volume.get("projected")
    found = projected.get("sources") if isinstance(projected, MAP) else None
    for at, source in enumerate(found if isinstance(found, list) else []):
        for key in GATED_PROJECTIONS:
            if isinstance(source, MAP) and source.get(key) is not None:
                raise origin.refuse(
                    ("volumes", index, "projected", "sources", at, key),
                    f"{key} is a projection behind a Kubernetes feature gate, which a cluster "
                    "without the gate drops; the function does not pass it on",
                )


def runtime_mounts(spec: Spec, settings: Input, volumes: Volumes, origin: Provenance) -> None:
    """The runtime's mounts: of volumes the pod has, off the platform's paths."""
    _mounts(
        origin,
        ("volumeMounts",),
        origin.data.get("volumeMounts") or [],
        volumes,
        _platform_paths(spec, settings),
    )


def container_mounts(
    origin: Provenance, loc: Loc, container: Mapping[str, Any], volumes: Volumes
) -> None:
    """A user's container's mounts and block devices, each of a volume the pod has."""
    mounts = container.get("volumeMounts")
    if mounts is not None and not isinstance(mounts, list):
        raise origin.refuse((*loc, "volumeMounts"), "volumeMounts must be a list")
    _mounts(origin, (*loc, "volumeMounts"), mounts or [], volumes, {})
    devices = container.get("volumeDevices")
    if devices is not None and not isinstance(devices, list):
        raise origin.refuse((*loc, "volumeDevices"), "volumeDevices must be a list")
    for index, device in enumerate(devices or []):
        _of_a_volume(
            origin, (*loc, "volumeDevices", index), device, "volume device", "devicePath", volumes
        )


def _platform_paths(spec: Spec, settings: Input) -> dict[str, str]:
    """Paths the platform mounts in the runtime container, and what each is."""
    found = {
        settings.sidecar.socket_dir: "the Asya socket directory",
        pod.TMP_PATH: "the pod's /tmp",
        settings.sidecar.runtime_mount_path: "the Asya runtime script",
    }
    if spec.state_proxy:
        found[pod.STATE_SOCKETS] = "the state-proxy sockets"
    for proxy in spec.state_proxy:
        found[proxy.mount.path] = f"state proxy {proxy.name!r}"
    return {pod.normal_path(path): what for path, what in found.items()}


def _mounts(
    origin: Provenance,
    prefix: Loc,
    mounts: Sequence[Any],
    volumes: Volumes,
    platform: Mapping[str, str],
) -> None:
    """Each mount names an existing volume at a path of its own in its container."""
    seen: dict[str, Loc] = {}
    for index, mount in enumerate(mounts):
        loc: Loc = (*prefix, index)
        _, path = _of_a_volume(origin, loc, mount, "volume mount", "mountPath", volumes)
        normal = pod.normal_path(path)
        if normal in platform:
            raise origin.refuse(
                (*loc, "mountPath"), f"{path} is where the platform mounts {platform[normal]}"
            )
        if normal in seen:
            raise origin.refuse((*loc, "mountPath"), f"{path} is mounted twice in one container")
        seen[normal] = loc


def _of_a_volume(
    origin: Provenance, loc: Loc, item: Any, what: str, path_field: str, volumes: Volumes
) -> tuple[str, str]:
    """A mount's or a device's volume and path: a map, both set, of a volume the pod has."""
    if not isinstance(item, MAP):
        raise origin.refuse(loc, f"a {what} must be a map")
    name, path = item.get("name"), item.get(path_field)
    if not isinstance(path, str) or not path:
        raise origin.refuse((*loc, path_field), f"a {what} needs a {path_field}", missing=True)
    if not isinstance(name, str) or not name:
        raise origin.refuse((*loc, "name"), f"a {what} needs the name of a volume", missing=True)
    if name not in volumes:
        raise origin.refuse((*loc, "name"), f"no volume named {name!r} in the pod")
    return name, path
