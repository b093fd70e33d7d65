"""What the API server checks beyond the schemas of the pod's types, written as schema.

Kubernetes' pod validation refuses values its OpenAPI schemas allow: a port past 65535,
an image pull policy it does not know, a file mode past 0777, a subPath that climbs out
of its volume, a field an env var cannot be read from, a Secret named as no object can
be. Each rule below is one of them, as the schema it adds to its type and the words a
refusal says instead of the validator's; a container's probes and hooks have theirs in
probe_rules, taken in here. kube_schemas applies them with the types.
"""

from __future__ import annotations

from typing import Any

from function.models import names
from function.resolve import probe_rules, security_rules, storage_rules, volume_rules
from function.resolve import rule_parts as parts

# How a mount propagates: Bidirectional only in a privileged container.
PROPAGATIONS = ("None", "HostToContainer", "Bidirectional")
# The sources an env var may be read from (EnvVarSource's fields).
ENV_SOURCES = ("configMapKeyRef", "fieldRef", "fileKeyRef", "resourceFieldRef", "secretKeyRef")
_ENV_FIELDS = (
    rf"^(metadata\.(name|namespace|uid)|{parts.ONE_LABEL}"
    r"|spec\.(nodeName|host|serviceAccountName)|status\.(hostIPs?|podIPs?))$"
)
# A divisor written as a JSON number reads as a plain decimal quantity (`1000` is `1k`);
# one written as text is checked by the validator's `cpu-divisor` or `size-divisor`
# format (kube_schemas), as the API server compares its canonical text.
CPU_DIVISOR_NUMBERS = (0, 0.001, 1)
SIZE_DIVISOR_NUMBERS = (0, 1, *(1000**power for power in range(1, 7)))


def _divisor(kind: str, numbers: tuple[float, ...]) -> dict[str, Any]:
    return {
        "anyOf": [
            {"type": "null"},
            {"enum": list(numbers)},
            {"type": "string", "format": f"{kind}-divisor"},
        ]
    }


# Every type's rules: the pod's here, and those of probes, security contexts and volumes.
RULES: parts.Rules = {
    **probe_rules.RULES,
    # Found by the real API server (tests/cluster): a skew of 0, say.
    "TopologySpreadConstraint": (
        {
            "properties": {
                "maxSkew": {"minimum": 1},
                "minDomains": {"minimum": 1},
                "topologyKey": {"minLength": 1},
                "whenUnsatisfiable": {"enum": ["DoNotSchedule", "ScheduleAnyway"]},
            }
        },
        {
            "maxSkew": "greater than zero",
            "minDomains": "greater than zero",
            "topologyKey": "a label key (not empty)",
            "whenUnsatisfiable": "DoNotSchedule or ScheduleAnyway",
        },
    ),
    "NodeSelector": (
        {"properties": {"nodeSelectorTerms": {"minItems": 1}}},
        {"nodeSelectorTerms": "at least one node selector term"},
    ),
    "PreferredSchedulingTerm": (
        {"properties": {"weight": {"minimum": 1, "maximum": 100}}},
        {"weight": "from 1 to 100"},
    ),
    "WeightedPodAffinityTerm": (
        {"properties": {"weight": {"minimum": 1, "maximum": 100}}},
        {"weight": "from 1 to 100"},
    ),
    "PodAffinityTerm": (
        {"properties": {"topologyKey": {"minLength": 1}}},
        {"topologyKey": "a label key (not empty)"},
    ),
    "ContainerPort": (
        {
            "properties": {
                "containerPort": probe_rules.PORT,
                "hostPort": {"minimum": 0, "maximum": 65535},
                "name": {"pattern": probe_rules.PORT_NAME},
                "protocol": {"enum": [None, "", "TCP", "UDP", "SCTP"]},
            }
        },
        {
            "containerPort": "a port from 1 to 65535",
            "hostPort": "0 or a port from 1 to 65535",
            "name": probe_rules.PORT_NAME_SAID,
            "protocol": "TCP, UDP or SCTP (in capitals; empty is TCP)",
        },
    ),
    "Container": (
        {
            "properties": {
                "imagePullPolicy": parts.PULL_POLICY,
                "terminationMessagePolicy": {"enum": [None, "", "File", "FallbackToLogsOnError"]},
                "restartPolicy": {"enum": [None, "Always", "OnFailure", "Never"]},
                "livenessProbe": probe_rules.ONE_SUCCESS,
                "startupProbe": probe_rules.ONE_SUCCESS,
                "readinessProbe": {
                    "properties": {"terminationGracePeriodSeconds": {"type": "null"}}
                },
            },
            # A Bidirectional mount only in a privileged container.
            "if": {
                "required": ["volumeMounts"],
                "properties": {
                    "volumeMounts": {
                        "contains": {
                            "required": ["mountPropagation"],
                            "properties": {"mountPropagation": {"const": "Bidirectional"}},
                        }
                    }
                },
            },
            "then": {
                "required": ["securityContext"],
                "properties": {
                    "securityContext": {
                        "required": ["privileged"],
                        "properties": {"privileged": {"const": True}},
                    }
                },
            },
        },
        {
            "imagePullPolicy": parts.PULL_POLICY_SAID,
            "terminationMessagePolicy": "File or FallbackToLogsOnError (or empty: File)",
            "restartPolicy": "Always (OnFailure or Never where Kubernetes' ContainerRestartRules "
            "feature is on)",
            "": "privileged (securityContext.privileged: true) to mount with Bidirectional "
            "propagation",
            "securityContext": "privileged: true to mount with Bidirectional propagation",
            "privileged": "true to mount with Bidirectional propagation",
            "successThreshold": "1 for a liveness or startup probe",
            "terminationGracePeriodSeconds": "unset on a readiness probe",
        },
    ),
    "EnvFromSource": (
        {
            "properties": {"prefix": {"pattern": r"^[ -<>-~]*$"}},
            **parts.exactly_one("configMapRef", "secretRef"),
        },
        {
            "": "set with exactly one source: configMapRef or secretRef",
            "prefix": "printable ASCII other than '='",
        },
    ),
    **volume_rules.RULES,
    **storage_rules.RULES,
    "VolumeMount": (
        {
            "properties": {
                "subPath": {"pattern": parts.DESCENDING},
                "subPathExpr": {"pattern": parts.DESCENDING},
                "mountPropagation": {"enum": [None, *PROPAGATIONS]},
                "recursiveReadOnly": {"enum": [None, "Disabled", "IfPossible", "Enabled"]},
            },
        },
        {
            "subPath": parts.DESCENDING_SAID,
            "subPathExpr": parts.DESCENDING_SAID,
            "mountPropagation": "None, HostToContainer or Bidirectional (Bidirectional in a "
            "privileged container only)",
            "recursiveReadOnly": "Disabled, IfPossible or Enabled",
        },
    ),
    "ContainerResizePolicy": (
        {
            "properties": {
                "resourceName": {"enum": ["cpu", "memory"]},
                "restartPolicy": {"enum": ["NotRequired", "RestartContainer"]},
            }
        },
        {
            "resourceName": "cpu or memory",
            "restartPolicy": "NotRequired or RestartContainer",
        },
    ),
    **security_rules.RULES,
    "EnvVarSource": (
        {
            "properties": {
                "fieldRef": {
                    "properties": {"fieldPath": {"pattern": _ENV_FIELDS}, "apiVersion": parts.V1}
                }
            },
            **parts.exactly_one(*ENV_SOURCES),
        },
        {
            "": f"set with exactly one source: {', '.join(ENV_SOURCES)}",
            "fieldPath": "metadata.name, metadata.namespace, metadata.uid, "
            "metadata.labels['<key>'], metadata.annotations['<key>'], spec.nodeName, "
            "spec.serviceAccountName, status.hostIP(s) or status.podIP(s); <key> a label key "
            "(an annotation's in any case)",
            "apiVersion": parts.V1_SAID,
        },
    ),
    # An env var read from a file an init container writes (EnvFiles, beta from 1.35);
    # pod_volumes checks that its volume is one of the pod's emptyDirs.
    "FileKeySelector": (
        {
            "properties": {
                "key": {"pattern": r"^[ -<>-~]+$", "maxLength": 128},
                "path": parts.FILE_PATH,
                "volumeName": {"pattern": names.DNS_LABEL, "maxLength": names.MAX_LABEL},
            }
        },
        {
            "key": "printable ASCII other than '=', at most 128 characters",
            "path": parts.FILE_PATH_SAID,
            "volumeName": "a volume's name: a DNS label",
        },
    ),
    "ResourceFieldSelector": (
        {
            "properties": {
                "resource": {
                    "pattern": r"^(limits|requests)\.(cpu|memory|ephemeral-storage|hugepages-.+)$"
                }
            },
            "allOf": [
                {
                    "if": {"properties": {"resource": {"pattern": r"\.cpu$"}}},
                    "then": {"properties": {"divisor": _divisor("cpu", CPU_DIVISOR_NUMBERS)}},
                },
                {
                    "if": {"properties": {"resource": {"pattern": r"\.(?!cpu$)"}}},
                    "then": {"properties": {"divisor": _divisor("size", SIZE_DIVISOR_NUMBERS)}},
                },
            ],
        },
        {
            "resource": "limits. or requests. and cpu, memory, ephemeral-storage or hugepages-<size>",
            "divisor": "1m or 1 for cpu; 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi or 1Ei "
            "for memory, storage and huge pages, as the API server reads it (1000 is 1k; 1e3 "
            "and 1024 are neither)",
        },
    ),
    **{
        source: (
            {"properties": {"name": parts.OBJECT_NAME}, "required": ["name"]},
            {"name": parts.OBJECT_NAME_SAID, "": "set with a name"},
        )
        for source in ("ConfigMapEnvSource", "SecretEnvSource")
    },
    **{
        selector: (
            {"properties": {"name": parts.OBJECT_NAME, "key": parts.KEY}, "required": ["name"]},
            {"name": parts.OBJECT_NAME_SAID, "key": parts.KEY_SAID},
        )
        for selector in ("SecretKeySelector", "ConfigMapKeySelector")
    },
}


# Fields the strict schemas require but the API server takes absent.
OPTIONAL = probe_rules.OPTIONAL


def said(schema_path: list[str | int], prefix: str) -> tuple[str, str] | None:
    """(the type, what the value must be) when a rule here refused it, else None.

    `schema_path` is where the validator found the error: a rule's lies under its
    type's second `allOf` entry (kube_schemas puts it there); the innermost such rule
    is the one that refused. Within it, the last property named is the field; none
    named, the rule was the object's own.
    """
    found = None
    for at, step in enumerate(schema_path[:-1]):
        if step == "allOf" and schema_path[at + 1] == 1 and at > 0:
            kind = str(schema_path[at - 1]).removeprefix(prefix)
            if kind in RULES:
                found = at, kind
    if found is None:
        return None
    at, kind = found
    rest = schema_path[at + 2 :]
    owners = [i for i, step in enumerate(rest[:-1]) if step == "properties"]
    field = str(rest[owners[-1] + 1]) if owners else ""
    if field in RULES[kind][1]:
        return kind, RULES[kind][1][field]
    return None
