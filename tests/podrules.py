"""The API server's pod rules, written from the Kubernetes validation, as a test oracle.

Independent of function/validate.py on purpose: the function's stage refuses what
breaks these rules; this checks what it rendered.
"""

from __future__ import annotations

import re
from typing import Any

DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
ENV_NAME = re.compile(r"^[ -<>-~]+$")


def _label(name: Any) -> bool:
    return isinstance(name, str) and len(name) <= 63 and bool(DNS_LABEL.match(name))


def violations(pod: dict[str, Any]) -> list[str]:
    """Every pod rule a pod spec breaks (empty when the API server would accept it)."""
    found: list[str] = []
    containers = [*(pod.get("initContainers") or []), *(pod.get("containers") or [])]
    volumes = [v.get("name") for v in pod.get("volumes") or []]
    names = [c.get("name") for c in containers]
    found += [f"container name {n!r} is not a DNS label" for n in names if not _label(n)]
    found += [f"container name {n!r} twice" for n in set(names) if names.count(n) > 1]
    found += [f"volume name {n!r} is not a DNS label" for n in volumes if not _label(n)]
    found += [f"volume name {n!r} twice" for n in set(volumes) if volumes.count(n) > 1]
    for volume in pod.get("volumes") or []:
        sources = [key for key, value in volume.items() if key != "name" and value is not None]
        if len(sources) > 1:
            found.append(f"volume {volume.get('name')!r} has more than one source")
    for container in containers:
        where = f"container {container.get('name')!r}"
        if not container.get("image"):
            found.append(f"{where}: no image")
        env = [e.get("name") for e in container.get("env") or []]
        found += [
            f"{where}: env name {n!r} is invalid"
            for n in env
            if not isinstance(n, str) or not ENV_NAME.match(n)
        ]
        found += [f"{where}: env {n!r} twice" for n in set(env) if env.count(n) > 1]
        paths = []
        for mount in container.get("volumeMounts") or []:
            path = mount.get("mountPath")
            if not isinstance(path, str) or not path:
                found.append(f"{where}: a mount without mountPath")
                continue
            paths.append(path.rstrip("/") or "/")
            if mount.get("name") not in volumes:
                found.append(f"{where}: a mount of the missing volume {mount.get('name')!r}")
        found += [f"{where}: {p} mounted twice" for p in set(paths) if paths.count(p) > 1]
    return found
