"""The volume kinds the platform allows, and the Pod Security level it chose (docs/flavors.md, "What gets refused").

Checked on the parts of the pod an actor or flavor supplies (volumes, sidecars, init
containers): the platform's own containers are rendered to meet the level. The checks
are Kubernetes' Pod Security Standards as its admission runs them (pod-security-admission
1.36), for the fields an actor can set; the real API server, labelled with the level,
judges them in the suite (tests/cluster).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from function.models.input import Input
from function.models.plain import MAP
from function.models.pod import Loc, value_at
from function.models.security import (
    RESTRICTED_VOLUMES,
    VOLUME_KINDS,
    container_context,
    pod_context,
)
from function.resolve.provenance import Provenance

# Pod Security baseline: the capabilities a container may add (the runtime's defaults).
BASELINE_CAPABILITIES = frozenset(
    {
        "AUDIT_WRITE",
        "CHOWN",
        "DAC_OVERRIDE",
        "FOWNER",
        "FSETID",
        "KILL",
        "MKNOD",
        "NET_BIND_SERVICE",
        "SETFCAP",
        "SETGID",
        "SETPCAP",
        "SETUID",
        "SYS_CHROOT",
    }
)
# Pod Security baseline: the sysctls a pod may set (the safe set, as of 1.36).
SAFE_SYSCTLS = frozenset(
    {
        "kernel.shm_rmid_forced",
        "net.ipv4.ip_local_port_range",
        "net.ipv4.tcp_syncookies",
        "net.ipv4.ping_group_range",
        "net.ipv4.ip_unprivileged_port_start",
        "net.ipv4.ip_local_reserved_ports",
        "net.ipv4.tcp_keepalive_time",
        "net.ipv4.tcp_fin_timeout",
        "net.ipv4.tcp_keepalive_intvl",
        "net.ipv4.tcp_keepalive_probes",
        "net.ipv4.tcp_rmem",
        "net.ipv4.tcp_wmem",
    }
)
SELINUX_TYPES = frozenset(
    {"", "container_t", "container_init_t", "container_kvm_t", "container_engine_t"}
)
PROBES = ("livenessProbe", "readinessProbe", "startupProbe")
Problem = tuple[Loc, str]


def check(settings: Input, origin: Provenance) -> None:
    """Refuse volumes of kinds not allowed, and what breaks the Input's Pod Security level.

    Raises:
        function.errors.FlavorError: (its SpecError form for the actor's own values)
            naming each field, the level, and the flavor or actor that set it.
    """
    problems = list(_volumes(settings, origin.data))
    level = settings.pod_security
    if level != "privileged":
        for loc, container in _containers(settings, origin.data):
            problems += _baseline(settings, loc, container)
            if level == "restricted":
                problems += _restricted(loc, container)
        problems += _pod(settings, origin.data)
    if problems:
        # A field the level requires and nobody set is blamed on who supplied its container.
        raise origin.refuse_all(
            [(loc, message, value_at(origin.data, loc) is None, ()) for loc, message in problems]
        )


def _kind(volume: Mapping[str, Any]) -> str | None:
    return next((key for key in volume if key in VOLUME_KINDS), None)


def _volumes(settings: Input, data: Mapping[str, Any]) -> Iterator[Problem]:
    allowed = settings.allowed_volumes
    level = settings.pod_security
    for index, volume in enumerate(data.get("volumes") or []):
        kind = _kind(volume) if isinstance(volume, MAP) else None
        if kind is None:
            continue  # no source: Kubernetes makes it an emptyDir
        loc = ("volumes", index, kind)
        if kind not in allowed:
            yield (
                loc,
                (
                    f"{kind} volumes are not allowed: the platform allows "
                    f"{', '.join(sorted(allowed)) or 'none'} (Input allowedVolumes)"
                ),
            )
        elif kind == "hostPath" and level != "privileged":
            yield loc, f"Pod Security {level} (Input podSecurity) forbids hostPath volumes"
        elif level == "restricted" and kind not in RESTRICTED_VOLUMES:
            yield loc, f"Pod Security restricted (Input podSecurity) forbids {kind} volumes"


def _containers(
    settings: Input, data: Mapping[str, Any]
) -> Iterator[tuple[Loc, Mapping[str, Any]]]:
    """Each container whose securityContext an actor sets, as the pod will hold it.

    The runtime's is the actor's `securityContext` over what the level has the
    platform set (so its location is the spec's own `securityContext`).
    """
    own = data.get("securityContext")
    if isinstance(own, MAP):
        yield (), {"securityContext": container_context(settings.pod_security, dict(own))}
    for field in ("initContainers", "sidecars"):
        for index, container in enumerate(data.get(field) or []):
            if isinstance(container, MAP):
                yield (field, index), container


def _context(container: Mapping[str, Any]) -> Mapping[str, Any]:
    context = container.get("securityContext")
    return context if isinstance(context, MAP) else {}


def _baseline(settings: Input, loc: Loc, container: Mapping[str, Any]) -> Iterator[Problem]:
    level = f"Pod Security {settings.pod_security} (Input podSecurity) forbids"
    context = _context(container)
    at = (*loc, "securityContext")
    if context.get("privileged") is True:
        yield (*at, "privileged"), f"{level} privileged containers"
    added = _capabilities(context, "add")
    if settings.pod_security == "baseline" and (
        extra := sorted(set(added) - BASELINE_CAPABILITIES)
    ):
        yield (*at, "capabilities", "add"), f"{level} adding {', '.join(extra)}"
    if context.get("procMount") not in (None, "Default"):
        yield (*at, "procMount"), f"{level} a procMount other than Default"
    yield from _profiles(level, at, context)
    yield from _host_ports(level, loc, container)
    yield from _hosts(level, loc, container)


def _profiles(level: str, at: Loc, context: Mapping[str, Any]) -> Iterator[Problem]:
    """What a container's and the pod's securityContext share: profiles, SELinux, Windows."""
    for field, said in (("seccompProfile", "seccomp"), ("appArmorProfile", "AppArmor")):
        kind = _type(context, field)
        if kind is not None and kind not in ("RuntimeDefault", "Localhost"):
            yield (*at, field, "type"), f"{level} the {said} profile {kind}"
    yield from _selinux(level, at, context)
    windows = context.get("windowsOptions")
    if isinstance(windows, MAP) and windows.get("hostProcess") is True:
        yield (*at, "windowsOptions", "hostProcess"), f"{level} Windows host processes"


def _selinux(level: str, at: Loc, context: Mapping[str, Any]) -> Iterator[Problem]:
    options = context.get("seLinuxOptions")
    if not isinstance(options, MAP):
        return
    if options.get("type", "") not in SELINUX_TYPES:
        yield (*at, "seLinuxOptions", "type"), f"{level} the SELinux type {options['type']}"
    for key in ("user", "role"):
        if options.get(key):
            yield (*at, "seLinuxOptions", key), f"{level} setting an SELinux {key}"


def _host_ports(level: str, loc: Loc, container: Mapping[str, Any]) -> Iterator[Problem]:
    ports = container.get("ports")
    for index, port in enumerate(ports if isinstance(ports, list) else []):
        if isinstance(port, MAP) and port.get("hostPort") not in (None, 0):
            yield (*loc, "ports", index, "hostPort"), f"{level} host ports"


def _hosts(level: str, loc: Loc, container: Mapping[str, Any]) -> Iterator[Problem]:
    """A probe or lifecycle hook aimed at another host (Pod Security 1.34+)."""
    handlers: list[tuple[Loc, Any]] = [((*loc, probe), container.get(probe)) for probe in PROBES]
    lifecycle = container.get("lifecycle")
    if isinstance(lifecycle, MAP):
        handlers += [
            ((*loc, "lifecycle", hook), lifecycle.get(hook)) for hook in ("postStart", "preStop")
        ]
    for at, handler in handlers:
        for action in ("httpGet", "tcpSocket"):
            target = handler.get(action) if isinstance(handler, MAP) else None
            if isinstance(target, MAP) and target.get("host"):
                yield (*at, action, "host"), f"{level} probes and hooks aimed at a host"


def _pod(settings: Input, data: Mapping[str, Any]) -> Iterator[Problem]:
    """The pod's own securityContext (the actor's `podSecurityContext`)."""
    own = data.get("podSecurityContext")
    if not isinstance(own, MAP):
        return
    context = pod_context(settings.pod_security, dict(own))
    level = f"Pod Security {settings.pod_security} (Input podSecurity)"
    at: Loc = ("podSecurityContext",)
    yield from _profiles(f"{level} forbids", at, context)
    sysctls = context.get("sysctls")
    for index, sysctl in enumerate(sysctls if isinstance(sysctls, list) else []):
        name = sysctl.get("name") if isinstance(sysctl, MAP) else None
        if name not in SAFE_SYSCTLS:
            yield (*at, "sysctls", index, "name"), f"{level} forbids the sysctl {name}"
    if settings.pod_security == "restricted":
        if context.get("runAsNonRoot") is not True:
            yield (*at, "runAsNonRoot"), f"{level} requires running as non-root"
        if context.get("runAsUser") == 0:
            yield (*at, "runAsUser"), f"{level} requires a user other than root (0)"


def _restricted(loc: Loc, container: Mapping[str, Any]) -> Iterator[Problem]:
    level = "Pod Security restricted (Input podSecurity) requires"
    context = _context(container)
    at = (*loc, "securityContext")
    if context.get("allowPrivilegeEscalation") is not False:
        yield (*at, "allowPrivilegeEscalation"), f"{level} allowPrivilegeEscalation: false"
    if "ALL" not in _capabilities(context, "drop"):
        yield (*at, "capabilities", "drop"), f"{level} dropping ALL capabilities"
    if extra := sorted(set(_capabilities(context, "add")) - {"NET_BIND_SERVICE"}):
        yield (
            (*at, "capabilities", "add"),
            f"{level} adding no capability but NET_BIND_SERVICE, not {', '.join(extra)}",
        )
    if context.get("runAsNonRoot") is False:
        yield (*at, "runAsNonRoot"), f"{level} running as non-root"
    if context.get("runAsUser") == 0:
        yield (*at, "runAsUser"), f"{level} a user other than root (0)"


def _capabilities(context: Mapping[str, Any], which: str) -> list[str]:
    capabilities = context.get("capabilities")
    listed = capabilities.get(which) if isinstance(capabilities, MAP) else None
    return [str(c) for c in listed] if isinstance(listed, list) else []


def _type(context: Mapping[str, Any], field: str) -> str | None:
    profile = context.get(field)
    kind = profile.get("type") if isinstance(profile, MAP) else None
    return kind if isinstance(kind, str) else None
