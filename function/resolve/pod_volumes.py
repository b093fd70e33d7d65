"""The pod's volumes, and the mounts and block devices of its containers that use them.

What the API server checks of them together (ValidateVolumes, ValidateVolumeMounts,
ValidateVolumeDevices, a projected volume's sources): names that exist and are used
once, paths of their own, and sources that fit their use. validate runs these with
the pod's other rules.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from function.models import names, pod
from function.models.input import Input
from function.models.pod import Loc
from function.models.spec import Spec
from function.resolve.provenance import Provenance

# The recursiveReadOnly modes that make a mount read-only all the way down.
RECURSIVELY_READ_ONLY = ("IfPossible", "Enabled")
# The sources a block device may be of: a claim, or a claim made for the pod.
CLAIMS = ("persistentVolumeClaim", "ephemeral")
# The files a projected volume's sources write, by where their paths are: no two at one path.
PROJECTED_FILES = {
    "secret": ("items", "path"),
    "configMap": ("items", "path"),
    "downwardAPI": ("items", "path"),
    "clusterTrustBundle": ("path",),
}

# Each volume of the pod by name → its source ("" for none: Kubernetes makes it an emptyDir).
Volumes = Mapping[str, str]


def defined(origin: Provenance) -> dict[str, str]:
    """The pod's volumes: the platform's and the spec's, each valid and named once."""
    found = pod.platform_volumes(bool(origin.data.get("stateProxy")))
    for index, volume in enumerate(origin.data.get("volumes") or []):
        loc: Loc = ("volumes", index, "name")
        name = volume.get("name") if isinstance(volume, Mapping) else None
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
        if sources == ["projected"]:
            _projected_paths(origin, ("volumes", index, "projected"), volume["projected"])
        found[name] = sources[0] if sources else ""
    return found


def _projected_paths(origin: Provenance, loc: Loc, projected: Any) -> None:
    """No two files of a projected volume at one path (a token's path is not counted)."""
    sources = projected.get("sources") if isinstance(projected, Mapping) else None
    taken: set[str] = set()
    for index, source in enumerate(sources if isinstance(sources, list) else []):
        for kind, (*within, field) in PROJECTED_FILES.items():
            part = source.get(kind) if isinstance(source, Mapping) else None
            files: list[tuple[Loc, Any]] = [((*loc, "sources", index, kind), part)]
            for step in within:  # the items of a source that lists them
                files = [
                    ((*at, step, number), item)
                    for at, listed in files
                    if isinstance(listed, Mapping) and isinstance(listed.get(step), list)
                    for number, item in enumerate(listed[step])
                ]
            for at, file in files:
                path = file.get(field) if isinstance(file, Mapping) else None
                if not isinstance(path, str) or not path:
                    continue
                if path in taken:
                    raise origin.refuse(
                        (*at, field), f"{path} is the path of another file of the volume"
                    )
                taken.add(path)


def runtime_mounts(spec: Spec, settings: Input, volumes: Volumes, origin: Provenance) -> None:
    """The runtime's mounts: of volumes the pod has, off the platform's paths, not Bidirectional."""
    platform = _platform_paths(spec, settings)
    mounts = origin.data.get("volumeMounts") or []
    _mounts(origin, ("volumeMounts",), mounts, volumes, platform)
    for index, mount in enumerate(mounts):
        if mount.get("mountPropagation") == "Bidirectional":
            raise origin.refuse(
                ("volumeMounts", index, "mountPropagation"),
                "Bidirectional propagation needs a privileged container, and the runtime "
                "container is not one",
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
    _devices(origin, (*loc, "volumeDevices"), devices or [], mounts or [], volumes)


def env_files(origin: Provenance, volumes: Volumes) -> None:
    """Each env var read from a file reads it from one of the pod's emptyDir volumes."""
    places: list[Loc] = [("env",)]
    for field in ("sidecars", "initContainers"):
        places += [(field, index, "env") for index in range(len(origin.data.get(field) or []))]
    for place in places:
        listed = pod.value_at(origin.data, place)
        for index, item in enumerate(listed if isinstance(listed, list) else []):
            loc: Loc = (*place, index, "valueFrom", "fileKeyRef", "volumeName")
            name = pod.value_at(item, loc[len(place) + 1 :])
            if not isinstance(name, str) or not name:
                continue  # the schema says what it must be
            if name not in volumes:
                raise origin.refuse(loc, f"no volume named {name!r} in the pod")
            if volumes[name] not in ("emptyDir", ""):
                raise origin.refuse(
                    loc, f"the volume {name!r} is no emptyDir: env files are read from an emptyDir"
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
        _mount_fields(origin, loc, mount)


def _of_a_volume(
    origin: Provenance, loc: Loc, item: Any, what: str, path_field: str, volumes: Volumes
) -> tuple[str, str]:
    """A mount's or a device's volume and path: a map, both set, of a volume the pod has."""
    if not isinstance(item, Mapping):
        raise origin.refuse(loc, f"a {what} must be a map")
    name, path = item.get("name"), item.get(path_field)
    if not isinstance(path, str) or not path:
        raise origin.refuse((*loc, path_field), f"a {what} needs a {path_field}", missing=True)
    if not isinstance(name, str) or not name:
        raise origin.refuse((*loc, "name"), f"a {what} needs the name of a volume", missing=True)
    if name not in volumes:
        raise origin.refuse((*loc, "name"), f"no volume named {name!r} in the pod")
    return name, path


def _mount_fields(origin: Provenance, loc: Loc, mount: Mapping[str, Any]) -> None:
    """The fields of one mount that only make sense together (ValidateVolumeMounts)."""
    if mount.get("subPath") and mount.get("subPathExpr"):
        raise origin.refuse((*loc, "subPathExpr"), "set subPath or subPathExpr, not both")
    if mount.get("recursiveReadOnly") in RECURSIVELY_READ_ONLY:
        if mount.get("readOnly") is not True:
            raise origin.refuse(
                (*loc, "recursiveReadOnly"), "needs readOnly: true on the same mount"
            )
        if mount.get("mountPropagation") not in (None, "None"):
            raise origin.refuse((*loc, "recursiveReadOnly"), "needs mountPropagation None or unset")


def _devices(
    origin: Provenance,
    prefix: Loc,
    devices: Sequence[Any],
    mounts: Sequence[Any],
    volumes: Volumes,
) -> None:
    """Each block device is a claim's, once, at a path no other device or mount has.

    Paths compare as written, as the API server compares them.
    """
    mounted = [mount for mount in mounts if isinstance(mount, Mapping)]
    names_mounted = {mount.get("name") for mount in mounted}
    paths_mounted = {mount.get("mountPath") for mount in mounted}
    seen_names: set[str] = set()
    seen_paths: set[str] = set()
    for index, device in enumerate(devices):
        loc: Loc = (*prefix, index)
        name, path = _of_a_volume(origin, loc, device, "volume device", "devicePath", volumes)
        if volumes[name] not in CLAIMS:
            raise origin.refuse(
                (*loc, "name"),
                f"the volume {name!r} is no claim: a block device is a persistentVolumeClaim's "
                "or an ephemeral volume's",
            )
        if name in seen_names:
            raise origin.refuse(
                (*loc, "name"), f"the volume {name!r} is a device twice in the container"
            )
        if name in names_mounted:
            raise origin.refuse(
                (*loc, "name"), f"the volume {name!r} is mounted in the container too"
            )
        if ".." in path.split("/"):
            raise origin.refuse((*loc, "devicePath"), "must not contain '..'")
        if path in seen_paths:
            raise origin.refuse((*loc, "devicePath"), f"{path} is the path of another device")
        if path in paths_mounted:
            raise origin.refuse(
                (*loc, "devicePath"), f"{path} is where the container mounts a volume"
            )
        seen_names.add(name)
        seen_paths.add(path)
