"""Env var names in the pod: valid, none the platform sets, none twice in one container.

The runtime's `env` and `secretRefs` share one container and one namespace of names; the
sidecar, each connector and each user container have their own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from function.errors import FlavorError
from function.models import pod
from function.models.pod import Loc
from function.resolve.provenance import Provenance

# Kubernetes 1.34+ accepts any printable ASCII but "=" in an env var name.
ENV_NAME = re.compile(r"^[ -<>-~]+$")


def problem(name: Any) -> str:
    """Why a name is no env var name Kubernetes takes ('' when it is one)."""
    if not isinstance(name, str) or not name:
        return "an env var needs a name"
    if not ENV_NAME.match(name):
        return f"{name!r} is not a valid env var name: printable ASCII other than '=' only"
    return ""


def unique(
    origin: Provenance, entries: Iterable[tuple[Any, Loc]], reserved: frozenset[str], where: str
) -> None:
    """Env names valid, none the platform's, none twice in one container."""
    seen: dict[str, Loc] = {}
    for name, loc in entries:
        if wrong := problem(name):
            raise origin.refuse(loc, wrong, missing=not name)
        if name in reserved:
            raise origin.refuse(loc, f'"{name}" is set by the platform in the {where}')
        if name in seen:
            raise origin.refuse(loc, f'"{name}" is defined twice in the {where}')
        seen[name] = loc


def runtime(origin: Provenance) -> None:
    """The runtime's env: `env` and `secretRefs` share one container and one namespace."""
    data = origin.data

    def where(loc: Loc) -> str:
        _, source = origin.blame(loc)
        field = (
            "env" if loc[0] == "env" else f"secretRefs[{data['secretRefs'][loc[1]]['secretName']}]"
        )
        return f"{field} (from {source})"

    seen: dict[str, Loc] = {}
    entries: list[tuple[Any, Loc]] = [
        (item.get("name"), ("env", index, "name"))
        for index, item in enumerate(data.get("env") or [])
    ]
    for index, ref in enumerate(data.get("secretRefs") or []):
        entries += [
            (key.get("envVar"), ("secretRefs", index, "keys", position, "envVar"))
            for position, key in enumerate(ref.get("keys") or [])
        ]
    for index, item in enumerate(data.get("env") or []):
        # The API server: "may not be specified when `value` is not empty".
        if item.get("value") and item.get("valueFrom") is not None:
            raise origin.refuse(("env", index), "set value or valueFrom, not both")
    for name, loc in entries:
        if wrong := problem(name):
            raise origin.refuse(loc, wrong)
        if name in pod.RUNTIME_ENV:
            raise FlavorError(
                f'invalid env: "{name}" is set by the platform and cannot be set in {where(loc)}'
            )
        if name in seen:
            raise FlavorError(
                f'invalid env: "{name}" is defined twice, in {where(seen[name])} and in {where(loc)}'
            )
        seen[name] = loc


def sidecar(origin: Provenance) -> None:
    """The Asya sidecar's env: valid names, none the platform sets, none twice."""
    sidecar = origin.data.get("sidecar") or {}
    entries = [
        (item.get("name"), ("sidecar", "env", index, "name"))
        for index, item in enumerate(sidecar.get("env") or [])
    ]
    unique(origin, entries, pod.SIDECAR_ENV, "Asya sidecar")


def connectors(origin: Provenance) -> None:
    """Each state-proxy connector's env, alike."""
    for index, proxy in enumerate(origin.data.get("stateProxy") or []):
        connector = proxy.get("connector") or {}
        entries = [
            (item.get("name"), ("stateProxy", index, "connector", "env", position, "name"))
            for position, item in enumerate(connector.get("env") or [])
        ]
        unique(origin, entries, pod.CONNECTOR_ENV, f"connector of {proxy['name']!r}")
