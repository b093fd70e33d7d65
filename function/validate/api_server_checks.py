"""The API server's rules the typed spec can still trip, beyond its types' schemas (docs/flavors.md, "What gets refused").

Each row was found by the real API server in the test suite (tests/cluster), over
generated actors within the typed spec, not by reading its source: a row is the
schema it adds to its Kubernetes type and the words a refusal says instead of the
validator's. kube_schemas applies them with the types. A rule no generated actor
trips is left to the API server, whose refusal the status reports (docs/flavors.md, "What gets refused").
"""

from __future__ import annotations

from typing import Any, get_args

from function.models import names, pod

# Kubernetes type → (the schema it adds, what each of its properties must be; what the
# object as a whole must be under "", after "must be").
Rules = dict[str, tuple[dict[str, Any], dict[str, str]]]

PORT = {"minimum": 1, "maximum": 65535}
# A user or group id the API server takes.
_ID = {"minimum": 0, "maximum": 2**31 - 1}
_ID_SAID = "an id from 0 to 2147483647"
# A path inside a volume: relative, never through `..`.
_DESCENDING = {"pattern": r"^(?!/)(?!(.*/)?\.\.(/|$))"}
_DESCENDING_SAID = "a relative path inside the volume, no '..'"
_WEIGHT = ({"properties": {"weight": {"minimum": 1, "maximum": 100}}}, {"weight": "from 1 to 100"})


def _set(field: str) -> dict[str, Any]:
    return {"required": [field], "properties": {field: {"type": "object"}}}


def _one_of(*fields: str) -> dict[str, Any]:
    """Exactly one of these members set (an object with none or two is refused)."""
    return {"if": {"type": "object"}, "then": {"oneOf": [_set(field) for field in fields]}}


def _enum(*values: str) -> dict[str, Any]:
    """One of these words, or absent (null)."""
    return {"enum": [None, *values]}


def _enum_or_empty(*values: str) -> dict[str, Any]:
    """One of these words, or absent (null or empty: the API server puts its default)."""
    return {"enum": [None, "", *values]}


def _one_of_filled(*fields: str) -> dict[str, Any]:
    """Exactly one of these fields set and not empty."""
    return {"if": {"type": "object"}, "then": {"oneOf": [_filled(field) for field in fields]}}


def _filled(*fields: str) -> dict[str, Any]:
    """These fields set, none of them empty."""
    return {
        "required": list(fields),
        "properties": {f: {"type": "string", "minLength": 1} for f in fields},
    }


def _words(*values: str) -> str:
    return ", ".join(values[:-1]) + f" or {values[-1]}" if len(values) > 1 else values[0]


# A name the API server reads as an object's (a ConfigMap's, a Secret's): a DNS subdomain.
_OBJECT = {"minLength": 1, "maxLength": 253, "pattern": names.OBJECT_NAME}
_OBJECT_SAID = "an object name: lower case letters, digits, '-' and '.' (at most 253)"
_HANDLERS = ("exec", "httpGet", "tcpSocket", "grpc")
_MODE = {"minimum": 0, "maximum": 0o777}
_WINDOWS_USER = r'^([^\\]*\\)?[^"/\\:;|=,+*?<>@\[\]]{1,104}$'
_ACCESS_MODES = ("ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod")
_MODE_SAID = "a file mode from 0 to 0777"
_SYSCTL = r"^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$"
_ISCSI_NAME = r"^(iqn|eui|naa)\."
_HOST_PATH_TYPES = (
    "DirectoryOrCreate",
    "Directory",
    "FileOrCreate",
    "File",
    "Socket",
    "CharDevice",
    "BlockDevice",
)
# Label keys a term may name only beside its labelSelector.
_BESIDE_SELECTOR = {"dependentRequired": {"matchLabelKeys": ["labelSelector"]}}
# A liveness or startup probe succeeds once.
_ONCE = {"properties": {"successThreshold": {"maximum": 1}}}
_SCHEMES = ("HTTP", "HTTPS")
_SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")
_PROFILE_TYPES = ("RuntimeDefault", "Unconfined", "Localhost")
# A profile's localhostProfile is its own only with the type Localhost.
_PROFILE = (
    {
        "properties": {"type": _enum(*_PROFILE_TYPES)},
        "if": {
            "required": ["localhostProfile"],
            "properties": {"localhostProfile": {"type": "string"}},
        },
        "then": {"required": ["type"], "properties": {"type": {"const": "Localhost"}}},
    },
    {"type": _words(*_PROFILE_TYPES), "": "of type Localhost when it sets localhostProfile"},
)
_NAMED_SOURCE = (
    {"required": ["name"], "properties": {"name": _OBJECT}},
    {"name": _OBJECT_SAID},
)


# Types that are another with rows of their own (an init container is a Container the API
# server holds to more), and how messages name them.
DERIVED = {"InitContainer": "Container"}
SHOWN = {"InitContainer": "Container"}
# What only an init container that runs beside the others (restartPolicy Always) may set:
# probes and hooks, an empty lifecycle too (one of a stop signal alone is taken: a cluster
# without that feature's gate drops it).
_PROBES = ("livenessProbe", "readinessProbe", "startupProbe")
_ONE_HOOK = {
    "type": "object",
    "anyOf": [_set("postStart"), _set("preStop"), {"maxProperties": 0}],
}

RULES: Rules = {
    "InitContainer": (
        {
            "if": {
                "anyOf": [
                    *(_set(probe) for probe in _PROBES),
                    {"required": ["lifecycle"], "properties": {"lifecycle": _ONE_HOOK}},
                ]
            },
            "then": {
                "required": ["restartPolicy"],
                "properties": {"restartPolicy": {"const": "Always"}},
            },
        },
        {
            "": "set with restartPolicy Always to set lifecycle or a probe (it then runs beside the others)"
        },
    ),
    "TopologySpreadConstraint": (
        {
            "properties": {
                "maxSkew": {"minimum": 1},
                "minDomains": {"minimum": 1},
                # Not held to a label key's form here, as it is in a pod affinity term.
                "topologyKey": {"minLength": 1},
                "whenUnsatisfiable": {"enum": ["DoNotSchedule", "ScheduleAnyway"]},
                "nodeAffinityPolicy": _enum("Honor", "Ignore"),
                "nodeTaintsPolicy": _enum("Honor", "Ignore"),
            },
            **_BESIDE_SELECTOR,
        },
        {
            "maxSkew": "greater than zero",
            "minDomains": "greater than zero",
            "topologyKey": "a label key (not empty)",
            "whenUnsatisfiable": "DoNotSchedule or ScheduleAnyway",
            "": "set with a labelSelector to name matchLabelKeys",
            "nodeAffinityPolicy": "Honor or Ignore",
            "nodeTaintsPolicy": "Honor or Ignore",
        },
    ),
    "NodeSelector": (
        {"properties": {"nodeSelectorTerms": {"minItems": 1}}},
        {"nodeSelectorTerms": "at least one node selector term"},
    ),
    "PreferredSchedulingTerm": _WEIGHT,
    "WeightedPodAffinityTerm": _WEIGHT,
    "PodAffinityTerm": (
        {
            "properties": {
                "topologyKey": {"minLength": 1, "pattern": names.LABEL_KEY},
                "namespaces": {"items": {"pattern": names.DNS_LABEL, "maxLength": 63}},
            },
            "dependentRequired": {
                "matchLabelKeys": ["labelSelector"],
                "mismatchLabelKeys": ["labelSelector"],
            },
        },
        {
            "topologyKey": "a label key (not empty)",
            "namespaces": "namespace names",
            "": "set with a labelSelector to name matchLabelKeys or mismatchLabelKeys",
        },
    ),
    "PodSecurityContext": (
        {
            "properties": {
                "runAsUser": _ID,
                "runAsGroup": _ID,
                "fsGroup": _ID,
                "fsGroupChangePolicy": {"enum": [None, "Always", "OnRootMismatch"]},
                "seLinuxChangePolicy": _enum("Recursive"),
                "supplementalGroupsPolicy": _enum("Merge", "Strict"),
                "supplementalGroups": {"items": _ID},
            }
        },
        {
            "runAsUser": _ID_SAID,
            "runAsGroup": _ID_SAID,
            "fsGroup": _ID_SAID,
            "fsGroupChangePolicy": "Always or OnRootMismatch",
            "seLinuxChangePolicy": "Recursive (MountOption is behind a feature gate)",
            "supplementalGroupsPolicy": "Merge or Strict",
            "supplementalGroups": "ids from 0 to 2147483647",
        },
    ),
    "SecurityContext": (
        {
            "properties": {
                "runAsUser": _ID,
                "runAsGroup": _ID,
                "procMount": _enum("Default", "Unmasked"),
            }
        },
        {
            "runAsUser": _ID_SAID,
            "runAsGroup": _ID_SAID,
            "procMount": "Default or Unmasked",
        },
    ),
    "ContainerPort": (
        {
            "properties": {
                "containerPort": PORT,
                "hostPort": {"minimum": 0, "maximum": 65535},
                "protocol": _enum_or_empty("TCP", "UDP", "SCTP"),
                # An IANA service name: at most 15 lower case letters, digits and '-'.
                "name": {
                    "pattern": r"^((?=.{1,15}$)(?=.*[a-z])[a-z0-9]([a-z0-9]|-(?=[a-z0-9]))*)?$"
                },
            }
        },
        {
            "containerPort": "a port from 1 to 65535",
            "hostPort": "0 or a port from 1 to 65535",
            "protocol": "TCP, UDP or SCTP",
            "name": "a service name: at most 15 lower case letters, digits and single '-', "
            "with a letter (or empty)",
        },
    ),
    "Container": (
        {
            "properties": {
                # A user's container may leave it empty, as Kubernetes lets it.
                "imagePullPolicy": {"enum": [None, "", *get_args(pod.PullPolicy)]},
                "terminationMessagePolicy": _enum_or_empty("File", "FallbackToLogsOnError"),
                "livenessProbe": _ONCE,
                "startupProbe": _ONCE,
                "restartPolicy": _enum("Always", "Never", "OnFailure"),
            },
            "dependentRequired": {"restartPolicyRules": ["restartPolicy"]},
        },
        {
            "imagePullPolicy": "Always, IfNotPresent or Never (or empty: by the image tag)",
            "terminationMessagePolicy": "File or FallbackToLogsOnError",
            "successThreshold": "1 for a liveness or startup probe (0: the API server makes it 1)",
            "restartPolicy": "Always, Never or OnFailure",
            "": "set with a restartPolicy to set restartPolicyRules",
        },
    ),
    "VolumeMount": (
        {
            "properties": {
                "subPath": _DESCENDING,
                "subPathExpr": _DESCENDING,
                "mountPropagation": _enum_or_empty("None", "HostToContainer", "Bidirectional"),
                "recursiveReadOnly": _enum_or_empty("Disabled", "IfPossible", "Enabled"),
            }
        },
        {
            "subPath": _DESCENDING_SAID,
            "subPathExpr": _DESCENDING_SAID,
            "mountPropagation": "None, HostToContainer or Bidirectional",
            "recursiveReadOnly": "Disabled, IfPossible or Enabled",
        },
    ),
    "Probe": (
        _one_of(*_HANDLERS),
        {"": "set with exactly one handler: exec, httpGet, tcpSocket or grpc"},
    ),
    "LifecycleHandler": (
        _one_of("exec", "httpGet", "tcpSocket", "sleep"),
        {"": "set with exactly one handler: exec, httpGet, tcpSocket or sleep"},
    ),
    "ExecAction": (
        {"required": ["command"], "properties": {"command": {"minItems": 1}}},
        {"command": "a command (not empty)"},
    ),
    "HTTPGetAction": (
        {"properties": {"scheme": _enum_or_empty(*_SCHEMES)}},
        {"scheme": _words(*_SCHEMES)},
    ),
    "GRPCAction": ({"properties": {"port": PORT}}, {"port": "a port from 1 to 65535"}),
    "ConfigMapEnvSource": _NAMED_SOURCE,
    "SecretEnvSource": _NAMED_SOURCE,
    # A volume's ConfigMap or Secret is named, though not held to a name's form.
    "ConfigMapVolumeSource": (
        {"required": ["name"], "properties": {"name": {"minLength": 1}}},
        {"name": "the ConfigMap's name (not empty)"},
    ),
    "SecretVolumeSource": (
        {"required": ["secretName"], "properties": {"secretName": {"minLength": 1}}},
        {"secretName": "the Secret's name (not empty)"},
    ),
    "SeccompProfile": _PROFILE,
    "AppArmorProfile": _PROFILE,
    "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector": (
        {
            "properties": {
                "matchLabels": {
                    "propertyNames": {"pattern": names.LABEL_KEY},
                    "additionalProperties": {"pattern": names.LABEL_VALUE},
                }
            }
        },
        {"matchLabels": "labels: keys and values as Kubernetes names them"},
    ),
    "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement": (
        {
            "properties": {
                "operator": {"enum": list(_SELECTOR_OPERATORS)},
                "key": {"pattern": names.LABEL_KEY},
            },
            "if": {"properties": {"operator": {"enum": ["Exists", "DoesNotExist"]}}},
            "then": {"properties": {"values": {"maxItems": 0}}},
            "else": {"required": ["values"], "properties": {"values": {"minItems": 1}}},
        },
        {
            "operator": _words(*_SELECTOR_OPERATORS),
            "key": "a label key",
            "values": "empty with Exists or DoesNotExist, else at least one value",
        },
    ),
    "WindowsSecurityContextOptions": (
        {
            "properties": {
                "runAsUserName": {"minLength": 1, "pattern": _WINDOWS_USER},
                "gmsaCredentialSpec": {"minLength": 1},
                "gmsaCredentialSpecName": _OBJECT,
                # A host process needs the host's network, which an actor's pod never has.
                "hostProcess": {"enum": [None, False]},
            }
        },
        {
            "runAsUserName": "a user name ([DOMAIN\\]User: the user at most 104 characters, "
            'none of "/\\:;|=,+*?<>@[])',
            "gmsaCredentialSpec": "a credential spec (not empty)",
            "gmsaCredentialSpecName": _OBJECT_SAID,
            "hostProcess": "false: an actor's pod does not run on the host's network",
        },
    ),
    "Sysctl": (
        {"properties": {"name": {"maxLength": 253, "pattern": _SYSCTL}}},
        {"name": "a sysctl name: lower case words joined by '.' or '/'"},
    ),
    "ContainerResizePolicy": (
        {
            "properties": {
                "resourceName": {"enum": ["cpu", "memory"]},
                "restartPolicy": {"enum": ["NotRequired", "RestartContainer"]},
            }
        },
        {"resourceName": "cpu or memory", "restartPolicy": "NotRequired or RestartContainer"},
    ),
    "ContainerRestartRuleOnExitCodes": (
        {"properties": {"operator": {"enum": ["In", "NotIn"]}}},
        {"operator": "In or NotIn"},
    ),
    "EnvVarSource": (
        _one_of("fieldRef", "resourceFieldRef", "configMapKeyRef", "secretKeyRef", "fileKeyRef"),
        {"": "set with exactly one source"},
    ),
    "DownwardAPIVolumeFile": (
        _one_of("fieldRef", "resourceFieldRef"),
        {"": "set with exactly one of fieldRef and resourceFieldRef"},
    ),
    "DownwardAPIVolumeSource": (
        {"properties": {"defaultMode": _MODE}},
        {"defaultMode": _MODE_SAID},
    ),
    "ProjectedVolumeSource": ({"properties": {"defaultMode": _MODE}}, {"defaultMode": _MODE_SAID}),
    "SecretProjection": (_filled("name"), {"name": "the Secret's name (not empty)"}),
    "ConfigMapProjection": (_filled("name"), {"name": "the ConfigMap's name (not empty)"}),
    "CinderVolumeSource": (
        {"properties": {"secretRef": _filled("name")}},
        {"name": "the Secret's name (not empty)"},
    ),
    "NFSVolumeSource": (
        {"properties": {"path": {"pattern": "^/"}}},
        {"path": "an absolute path"},
    ),
    "HostPathVolumeSource": (
        {"properties": {"type": _enum_or_empty(*_HOST_PATH_TYPES)}},
        {"type": _words(*_HOST_PATH_TYPES)},
    ),
    "ImageVolumeSource": (
        {"properties": {"pullPolicy": _enum_or_empty(*get_args(pod.PullPolicy))}},
        {"pullPolicy": "Always, IfNotPresent or Never"},
    ),
    "CSIVolumeSource": (
        {
            "properties": {
                "driver": {
                    "maxLength": 63,
                    "pattern": r"^[A-Za-z0-9]([-A-Za-z0-9.]*[A-Za-z0-9])?$",
                },
                "nodePublishSecretRef": {"required": ["name"], "properties": {"name": _OBJECT}},
            }
        },
        {
            "driver": "a driver's name: letters, digits, '-' and '.' (at most 63)",
            "name": _OBJECT_SAID,
        },
    ),
    "ScaleIOVolumeSource": (_filled("volumeName"), {"volumeName": "the volume's name"}),
    "StorageOSVolumeSource": (
        {
            "required": ["volumeName"],
            "properties": {
                "volumeName": {"pattern": names.DNS_LABEL, "maxLength": 63},
                "secretRef": _filled("name"),
            },
        },
        {"volumeName": "the volume's name: a DNS label", "name": "the Secret's name (not empty)"},
    ),
    "FlockerVolumeSource": (
        {
            **_one_of_filled("datasetName", "datasetUUID"),
            "properties": {"datasetName": {"pattern": "^[^/]*$"}},
        },
        {"": "set with one of datasetName and datasetUUID", "datasetName": "a name without '/'"},
    ),
    "QuobyteVolumeSource": (
        {
            "properties": {
                "registry": {"pattern": r"^[^:,]+:[0-9]+(,[^:,]+:[0-9]+)*$"},
                "tenant": {"maxLength": 64},
            }
        },
        {"registry": "host:port pairs separated by commas", "tenant": "at most 64 characters"},
    ),
    "FCVolumeSource": (
        {
            "if": {"type": "object"},
            "then": {
                "oneOf": [
                    {
                        "required": ["targetWWNs", "lun"],
                        "properties": {"targetWWNs": {"minItems": 1}},
                    },
                    {"required": ["wwids"], "properties": {"wwids": {"minItems": 1}}},
                ]
            },
            "properties": {"lun": {"minimum": 0, "maximum": 255}},
        },
        {"": "set with targetWWNs and lun, or with wwids", "lun": "from 0 to 255"},
    ),
    "ISCSIVolumeSource": (
        {
            "properties": {
                "lun": {"minimum": 0, "maximum": 255},
                "iqn": {"pattern": _ISCSI_NAME},
                "initiatorName": {"pattern": _ISCSI_NAME},
            },
            "if": {
                "anyOf": [
                    {
                        "required": ["chapAuthDiscovery"],
                        "properties": {"chapAuthDiscovery": {"const": True}},
                    },
                    {
                        "required": ["chapAuthSession"],
                        "properties": {"chapAuthSession": {"const": True}},
                    },
                ]
            },
            "then": {"required": ["secretRef"], "properties": {"secretRef": {"type": "object"}}},
        },
        {
            "lun": "from 0 to 255",
            "iqn": "an iSCSI name (iqn., eui. or naa.)",
            "initiatorName": "an iSCSI name (iqn., eui. or naa.)",
            "": "set with a secretRef to use CHAP",
        },
    ),
    "AzureDiskVolumeSource": (
        {
            "properties": {
                "kind": _enum("Dedicated", "Managed", "Shared"),
                "cachingMode": _enum("None", "ReadOnly", "ReadWrite"),
            },
            # A managed disk is named by its resource id, any other by its blob's URL.
            "if": {"required": ["kind"], "properties": {"kind": {"const": "Managed"}}},
            "then": {"properties": {"diskURI": {"pattern": "^/subscriptions/"}}},
            "else": {"properties": {"diskURI": {"pattern": "^https://"}}},
        },
        {
            "kind": "Dedicated, Managed or Shared",
            "cachingMode": "None, ReadOnly or ReadWrite",
            "diskURI": "a managed disk's resource id (/subscriptions/...), else a blob's https URL",
        },
    ),
    "GCEPersistentDiskVolumeSource": (
        {"properties": {"partition": {"minimum": 0, "maximum": 255}}},
        {"partition": "from 0 to 255"},
    ),
    "AWSElasticBlockStoreVolumeSource": (
        {"properties": {"partition": {"minimum": 0, "maximum": 255}}},
        {"partition": "from 0 to 255"},
    ),
    "PersistentVolumeClaimSpec": (
        {
            "required": ["accessModes"],
            "properties": {
                "accessModes": {
                    "minItems": 1,
                    "items": {"enum": [*_ACCESS_MODES]},
                }
            },
        },
        {"accessModes": "at least one of " + _words(*_ACCESS_MODES)},
    ),
    "EphemeralVolumeSource": (
        {
            "required": ["volumeClaimTemplate"],
            "properties": {"volumeClaimTemplate": {"type": "object"}},
        },
        {"volumeClaimTemplate": "a claim template"},
    ),
    "EnvFromSource": (
        {"if": {"type": "object"}, "then": {"oneOf": [_set("configMapRef"), _set("secretRef")]}},
        {"": "set with exactly one source: configMapRef or secretRef"},
    ),
}


# Required strings the API server takes empty (every other is filled: kube_schemas).
EMPTY_TAKEN = frozenset({("Sysctl", "value")})
# Fields the strict schemas require but the API server takes absent.
OPTIONAL: dict[str, tuple[str, ...]] = {"SleepAction": ("seconds",), "HTTPHeader": ("value",)}


def row_that_refused(schema_path: list[str | int], prefix: str) -> tuple[str, str] | None:
    """(the type, what the value must be) when a row here refused it, else None.

    `schema_path` is where the validator found the error: a row's lies under its
    type's second `allOf` entry (kube_schemas puts it there); the innermost such row
    is the one that refused. Within it, the last property named is the field; none
    named, the row was the object's own.
    """
    found = None
    for at, step in enumerate(schema_path[:-1]):
        if step == "allOf" and schema_path[at + 1] == 1 and at > 0:
            kind = str(schema_path[at - 1]).removeprefix(prefix)
            if schema_path[at - 1] == 0 and at >= 3 and schema_path[at - 2] == "allOf":
                # The base's own rows, inside a derived type's first allOf entry.
                derived = str(schema_path[at - 3]).removeprefix(prefix)
                kind = DERIVED.get(derived, kind)
            if kind in RULES:
                found = at, kind
    if found is None:
        return None
    at, kind = found
    rest = schema_path[at + 2 :]
    owners = [i for i, step in enumerate(rest[:-1]) if step == "properties"]
    field = str(rest[owners[-1] + 1]) if owners else ""
    return (kind, RULES[kind][1][field]) if field in RULES[kind][1] else None
