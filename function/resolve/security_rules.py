"""What the API server checks of a container's securityContext beyond its schema, as schema.

A user's sidecar or init container may carry a securityContext; the pod the function
renders never sets `hostUsers: false` or `hostNetwork`, so what needs them is refused
here too. Each rule is one of Kubernetes' security context validations, as the schema
it adds to its type and the words a refusal says; kube_rules takes them in.
"""

from __future__ import annotations

from typing import Any

from function.resolve import rule_parts as parts

# What a container runs as: a user or group id the API server takes.
_ID = {"minimum": 0, "maximum": 2**31 - 1}
_ID_SAID = "an id from 0 to 2147483647"
PROFILE_TYPES = ("RuntimeDefault", "Unconfined", "Localhost")
# CAP_SYS_ADMIN grants escalation; so does privileged (the API server's words).
_NO_ESCALATION = {
    "if": {
        "required": ["allowPrivilegeEscalation"],
        "properties": {"allowPrivilegeEscalation": {"const": False}},
    },
    "then": {
        "properties": {
            "privileged": {"enum": [None, False]},
            "capabilities": {
                "properties": {"add": {"not": {"contains": {"const": "CAP_SYS_ADMIN"}}}}
            },
        }
    },
}


def _profile(
    kind: str, profile: dict[str, Any], said: str
) -> tuple[dict[str, Any], dict[str, str]]:
    """A seccomp or AppArmor profile: a Localhost one names its file, no other one does."""
    return (
        {
            "properties": {"type": {"enum": list(PROFILE_TYPES)}},
            "if": {"required": ["type"], "properties": {"type": {"const": "Localhost"}}},
            "then": {
                "required": ["localhostProfile"],
                "properties": {"localhostProfile": {"type": "string", **profile}},
            },
            "else": {"properties": {"localhostProfile": {"type": "null"}}},
        },
        {
            "type": ", ".join(PROFILE_TYPES),
            "localhostProfile": f"{said} with type Localhost; unset with any other type",
            "": f"given a localhostProfile with type Localhost ({kind})",
        },
    )


RULES: parts.Rules = {
    "SecurityContext": (
        {
            "properties": {
                "runAsUser": _ID,
                "runAsGroup": _ID,
                # Unmasked needs the pod's `hostUsers: false`, which it does not set.
                "procMount": {"enum": [None, "Default"]},
            },
            **_NO_ESCALATION,
        },
        {
            "runAsUser": _ID_SAID,
            "runAsGroup": _ID_SAID,
            "procMount": "Default (Unmasked needs the pod's hostUsers: false, which it does not "
            "set)",
            "privileged": "false or unset with allowPrivilegeEscalation: false",
            "add": "without CAP_SYS_ADMIN with allowPrivilegeEscalation: false",
        },
    ),
    # The pod's: found by the real API server (tests/cluster), an fsGroupChangePolicy it
    # does not know.
    "PodSecurityContext": (
        {
            "properties": {
                "runAsUser": _ID,
                "runAsGroup": _ID,
                "fsGroup": _ID,
                "fsGroupChangePolicy": {"enum": [None, "Always", "OnRootMismatch"]},
            }
        },
        {
            "runAsUser": _ID_SAID,
            "runAsGroup": _ID_SAID,
            "fsGroup": _ID_SAID,
            "fsGroupChangePolicy": "Always or OnRootMismatch",
        },
    ),
    # A seccomp profile's file lies under the kubelet's seccomp root.
    "SeccompProfile": _profile(
        "seccomp",
        {"pattern": parts.DESCENDING},
        "a path below the kubelet's seccomp root, no '..',",
    ),
    # An AppArmor profile's name: not blank, not padded, at most 4095 characters.
    "AppArmorProfile": _profile(
        "AppArmor",
        {"pattern": r"^\S([\s\S]*\S)?$", "maxLength": 4095},
        "the profile's name, not blank nor padded with spaces, at most 4095 characters",
    ),
    "WindowsSecurityContextOptions": (
        # A host process needs the pod's `hostNetwork`, which it does not set.
        {"properties": {"hostProcess": {"enum": [None, False]}}},
        {"hostProcess": "false or unset (a host process needs the pod's hostNetwork)"},
    ),
}
