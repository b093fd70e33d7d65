"""The API server's pod rules, written from the Kubernetes validation, as a test oracle.

Independent of function/validate/pod_spec.py on purpose: the function's stage refuses what
breaks these rules; this checks what it rendered.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
ENV_NAME = re.compile(r"^[ -<>-~]+$")


# A quantity as apimachinery's ParseQuantity reads one (the cases a spec writes).
QUANTITY = re.compile(r"([+-]?)([0-9]*\.?[0-9]*)(|[numkMGTPE]|[KMGTPE]i|[eE][+-]?[0-9]+)")
SCALE = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
COMPUTE = {"cpu", "memory", "ephemeral-storage"}


def quantity(value: Any) -> Fraction | None:
    """A quantity's value (None where the API server cannot read it)."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return None
    found = QUANTITY.fullmatch(str(value).strip())
    if found is None or not any(c.isdigit() for c in found.group(2)):
        return None
    sign, number, suffix = found.groups()
    amount = Fraction(number)
    if suffix.endswith("i"):
        amount *= 2 ** (10 * "KMGTPE".index(suffix[0]) + 10)
    elif suffix[:1] in ("e", "E") and len(suffix) > 1:
        amount *= Fraction(10) ** int(suffix[1:])
    else:
        amount *= Fraction(10) ** SCALE[suffix]
    return -amount if sign == "-" else amount


def resource_violations(where: str, resources: Any) -> list[str]:
    """What the API server refuses in one container's resources."""
    if not isinstance(resources, dict):
        return []
    found = [f"{where}: claims a resource the pod lacks" for _ in resources.get("claims") or []]
    amounts: dict[str, dict[str, Fraction]] = {}
    for section in ("limits", "requests"):
        amounts[section] = {}
        for name, value in (resources.get(section) or {}).items():
            extended = "/" in name and "kubernetes.io/" not in name
            if "/" not in name and name not in COMPUTE and not name.startswith("hugepages-"):
                found.append(f"{where}: {section} of {name!r}, no container resource")
            amount = quantity(value)
            if amount is None:
                found.append(f"{where}: {section}.{name} {value!r} is no quantity")
                continue
            if amount < 0:
                found.append(f"{where}: {section}.{name} is negative")
            if extended and amount.denominator != 1:
                found.append(f"{where}: {section}.{name} is not whole")
            amounts[section][name] = amount
    for name, request in amounts["requests"].items():
        limit = amounts["limits"].get(name)
        fixed = ("/" in name and "kubernetes.io/" not in name) or name.startswith("hugepages-")
        if limit is None and fixed:
            found.append(f"{where}: requests.{name} without a limit")
        elif limit is not None and (request > limit or (fixed and request != limit)):
            found.append(f"{where}: requests.{name} over its limit")
    names = {*amounts["limits"], *amounts["requests"]}
    if any(n.startswith("hugepages-") for n in names) and not names & {"cpu", "memory"}:
        found.append(f"{where}: huge pages without cpu or memory")
    return found


LABEL_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")


SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")


def _label_key(key: Any) -> bool:
    prefix, slash, name = str(key).rpartition("/")
    good_prefix = not slash or (len(prefix) <= 253 and bool(SUBDOMAIN.fullmatch(prefix)))
    return good_prefix and len(name) <= 63 and bool(LABEL_NAME.fullmatch(name))


def _label_value(value: Any) -> bool:
    return isinstance(value, str) and len(value) <= 63 and bool(LABEL_VALUE.fullmatch(value))


def scheduling_violations(pod: dict[str, Any]) -> list[str]:
    """What the API server refuses in a pod's nodeSelector and tolerations."""
    found = [
        f"nodeSelector {key!r}: {value!r} is no label"
        for key, value in (pod.get("nodeSelector") or {}).items()
        if not _label_key(key) or not _label_value(value)
    ]
    for toleration in pod.get("tolerations") or []:
        key, operator = toleration.get("key") or "", toleration.get("operator") or "Equal"
        value = toleration.get("value") or ""
        if key and not _label_key(key):
            found.append(f"toleration key {key!r} is no label key")
        if not key and operator != "Exists":
            found.append("a toleration without a key is not Exists")
        if "tolerationSeconds" in toleration and toleration.get("effect") != "NoExecute":
            found.append("tolerationSeconds without NoExecute")
        if operator == "Exists" and value:
            found.append("a value with Exists")
        if operator != "Exists" and not _label_value(value):
            found.append(f"toleration value {value!r} is no label value")
    return found


def _label(name: Any) -> bool:
    return isinstance(name, str) and len(name) <= 63 and bool(DNS_LABEL.match(name))


def violations(pod: dict[str, Any]) -> list[str]:
    """Every pod rule a pod spec breaks (empty when the API server would accept it)."""
    found: list[str] = scheduling_violations(pod)
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
        found += resource_violations(where, container.get("resources"))
        found += [
            f"{where}: port {port.get('containerPort')} out of range"
            for port in container.get("ports") or []
            if not 1 <= port.get("containerPort", 0) <= 65535
        ]
        port_names = [p["name"] for p in container.get("ports") or [] if p.get("name")]
        found += [f"{where}: port {n!r} twice" for n in set(port_names) if port_names.count(n) > 1]
        if container.get("imagePullPolicy") not in (None, "", "Always", "IfNotPresent", "Never"):
            found.append(f"{where}: pull policy {container['imagePullPolicy']!r}")
        found += [
            f"{where}: subPath {mount['subPath']!r} leaves its volume"
            for mount in container.get("volumeMounts") or []
            if str(mount.get("subPath", "")).startswith("/")
            or ".." in str(mount.get("subPath", "")).split("/")
        ]
    return found
