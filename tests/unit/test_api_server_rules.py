"""What the API server refuses beyond its schemas, in the parts a spec supplies, is refused first.

Each row is a rule of Kubernetes' pod validation; each refusal names the field and the
flavor that set it. What it accepts renders.
"""

from __future__ import annotations

from typing import Any

import pytest

from function import pipeline as fn
from function.errors import FlavorError
from function.models.security import VOLUME_KINDS
from function.resolve import (
    kube_rules,
    kube_schemas,
    probe_rules,
    security_rules,
    storage_rules,
    volume_rules,
)
from tests import support
from tests.unit.test_flavors import flavor, resolve

# Every volume kind allowed and no Pod Security level: these rows reach the rules behind
# the allow-list and the level (tests/unit/test_pod_security.py holds those two).
OPEN = support.struct({"podSecurity": "privileged", "allowedVolumes": sorted(VOLUME_KINDS)})


def answer(data: dict[str, Any]) -> list[str]:
    rsp = fn.FunctionRunner().answer(support.flavored_request(data, input=OPEN)).message()
    refused = support.fatal_messages(rsp)
    assert bool(refused) != bool(rsp.desired.resources)
    return refused


def _device(volume: str, path: str) -> dict[str, str]:
    return {"name": volume, "devicePath": path}


def _claim(name: str) -> dict[str, Any]:
    return {"name": name, "persistentVolumeClaim": {"claimName": name}}


REFUSED = {
    "a toleration with operator Exists and a value": (
        {"tolerations": [{"key": "a", "operator": "Exists", "value": "x"}]},
        "tolerations[0]: operator Exists takes no value",
    ),
    "a toleration without a key, operator Equal": (
        {"tolerations": [{"operator": "Equal", "value": "x"}]},
        "tolerations[0]: a toleration without a key matches every taint",
    ),
    "tolerationSeconds without NoExecute": (
        {"tolerations": [{"key": "a", "operator": "Exists", "tolerationSeconds": 5}]},
        "tolerations[0]: tolerationSeconds is for effect NoExecute only",
    ),
    "a toleration key that is no label key": (
        {"tolerations": [{"key": "bad key", "operator": "Exists"}]},
        "tolerations[0].key: not a label key",
    ),
    "a toleration value that is no label value": (
        {"tolerations": [{"key": "a", "value": "two words"}]},
        "tolerations[0]: not a label value",
    ),
    "a nodeSelector value past 63 characters": (
        {"nodeSelector": {"zone": "x" * 64}},
        "nodeSelector.zone: not a label value",
    ),
    "a nodeSelector key that is no label key": (
        {"nodeSelector": {"-zone": "a"}},
        "nodeSelector.-zone: not a label key",
    ),
    "a container port past 65535": (
        {"initContainers": [{"name": "i", "image": "i:1", "ports": [{"containerPort": 70000}]}]},
        "initContainers[i]: ports[0].containerPort: must be a port from 1 to 65535 "
        "(as Kubernetes' ContainerPort)",
    ),
    "a container port of 0": (
        {"sidecars": [{"name": "s", "image": "s:1", "ports": [{"containerPort": 0}]}]},
        "sidecars[s]: ports[0].containerPort: must be a port from 1 to 65535",
    ),
    "a pull policy Kubernetes does not know": (
        {"initContainers": [{"name": "i", "image": "i:1", "imagePullPolicy": "always"}]},
        "initContainers[i]: imagePullPolicy: must be Always, IfNotPresent or Never",
    ),
    "a Secret volume's mode past 0777": (
        {"volumes": [{"name": "s", "secret": {"secretName": "s", "defaultMode": 0o1000}}]},
        "volumes[s]: secret.defaultMode: must be a file mode from 0 to 0777",
    ),
    "a ConfigMap item path out of its volume": (
        {
            "volumes": [
                {"name": "c", "configMap": {"name": "c", "items": [{"key": "k", "path": "../k"}]}}
            ]
        },
        "volumes[c]: configMap.items[0].path: must be a relative path inside the volume",
    ),
    "a subPath out of its volume": (
        {
            "volumes": [{"name": "c", "emptyDir": {}}],
            "volumeMounts": [{"name": "c", "mountPath": "/c", "subPath": "a/../../b"}],
        },
        "volumeMounts[/c]: subPath: must be a relative path inside the volume, no '..'",
    ),
    "a subPathExpr out of its volume": (
        {
            "volumes": [{"name": "c", "emptyDir": {}}],
            "volumeMounts": [{"name": "c", "mountPath": "/c", "subPathExpr": "/$(POD)"}],
        },
        "volumeMounts[/c]: subPathExpr: must be a relative path inside the volume",
    ),
    "a downward API file of a field no volume may hold": (
        {
            "volumes": [
                {
                    "name": "d",
                    "downwardAPI": {
                        "items": [{"path": "node", "fieldRef": {"fieldPath": "spec.nodeName"}}]
                    },
                }
            ]
        },
        "volumes[d]: downwardAPI.items[0].fieldRef.fieldPath: must be metadata.name",
    ),
    "an env var read from a field the pod has not": (
        {"env": [{"name": "A", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels"}}}]},
        "env[A]: valueFrom.fieldRef.fieldPath: must be metadata.name",
    ),
    "an env var read from a resource no container has": (
        {"env": [{"name": "A", "valueFrom": {"resourceFieldRef": {"resource": "limits.gpu"}}}]},
        "env[A]: valueFrom.resourceFieldRef.resource: must be limits. or requests.",
    ),
    "a Secret named as no object can be": (
        {"env": [{"name": "A", "valueFrom": {"secretKeyRef": {"name": "My_Secret", "key": "k"}}}]},
        "env[A]: valueFrom.secretKeyRef.name: must be an object name",
    ),
    "a label value ending in a newline": (
        {"tolerations": [{"key": "a", "value": "b\n"}]},
        "tolerations[0]: not a label value",
    ),
    "a port name past 15 characters": (
        {
            "sidecars": [
                {
                    "name": "s",
                    "image": "s:1",
                    "ports": [{"containerPort": 9, "name": "http-metrics-port"}],
                }
            ]
        },
        "sidecars[s]: ports[0].name: must be at most 15 lowercase letters",
    ),
    "a port name twice in a container": (
        {
            "sidecars": [
                {
                    "name": "s",
                    "image": "s:1",
                    "ports": [
                        {"containerPort": 80, "name": "web"},
                        {"containerPort": 81, "name": "web"},
                    ],
                }
            ]
        },
        "sidecars[s].ports[1].name: the port name 'web' is used twice in the container",
    ),
    "a Secret key reference without a name": (
        {"env": [{"name": "A", "valueFrom": {"secretKeyRef": {"key": "k"}}}]},
        "env[A]: valueFrom.secretKeyRef:",
    ),
    "a ConfigMap key starting with '..'": (
        {"env": [{"name": "A", "valueFrom": {"configMapKeyRef": {"name": "c", "key": "..k"}}}]},
        "env[A]: valueFrom.configMapKeyRef.key: must be a key",
    ),
    "a probe without a handler": (
        {"sidecars": [{"name": "s", "image": "s:1", "livenessProbe": {"periodSeconds": 10}}]},
        "sidecars[s]: livenessProbe: must be set with exactly one handler: exec, httpGet, "
        "tcpSocket or grpc (as Kubernetes' Probe)",
    ),
    "a probe with two handlers": (
        {
            "sidecars": [
                {
                    "name": "s",
                    "image": "s:1",
                    "readinessProbe": {"exec": {"command": ["true"]}, "tcpSocket": {"port": 80}},
                }
            ]
        },
        "sidecars[s]: readinessProbe: must be set with exactly one handler",
    ),
    "a negative probe period": (
        {
            "sidecars": [
                {
                    "name": "s",
                    "image": "s:1",
                    "readinessProbe": {"exec": {"command": ["true"]}, "periodSeconds": -1},
                }
            ]
        },
        "sidecars[s]: readinessProbe.periodSeconds: must be 0 or more (as Kubernetes' Probe)",
    ),
    "a probe's grace period of 0": (
        {
            "sidecars": [
                {
                    "name": "s",
                    "image": "s:1",
                    "livenessProbe": {
                        "exec": {"command": ["true"]},
                        "terminationGracePeriodSeconds": 0,
                    },
                }
            ]
        },
        "livenessProbe.terminationGracePeriodSeconds: must be 1 or more, when set",
    ),
    "a liveness probe that needs two successes": (
        {
            "sidecars": [
                {
                    "name": "s",
                    "image": "s:1",
                    "livenessProbe": {"exec": {"command": ["true"]}, "successThreshold": 2},
                }
            ]
        },
        "sidecars[s]: livenessProbe.successThreshold: must be 1 for a liveness or startup "
        "probe (as Kubernetes' Container)",
    ),
    "a startup probe that needs two successes": (
        {
            "sidecars": [
                {
                    "name": "s",
                    "image": "s:1",
                    "startupProbe": {"tcpSocket": {"port": 80}, "successThreshold": 2},
                }
            ]
        },
        "startupProbe.successThreshold: must be 1 for a liveness or startup probe",
    ),
    "an exec probe without a command": (
        {"sidecars": [{"name": "s", "image": "s:1", "readinessProbe": {"exec": {}}}]},
        "sidecars[s]: readinessProbe.exec: must be set with a command (as Kubernetes' ExecAction)",
    ),
    "an exec probe with an empty command": (
        {"sidecars": [{"name": "s", "image": "s:1", "readinessProbe": {"exec": {"command": []}}}]},
        "readinessProbe.exec.command: must be a command of at least one word",
    ),
    "an HTTP probe on port 0": (
        {"sidecars": [{"name": "s", "image": "s:1", "readinessProbe": {"httpGet": {"port": 0}}}]},
        "sidecars[s]: readinessProbe.httpGet.port: must be a port from 1 to 65535, or a "
        "port's name",
    ),
    "an HTTP probe on a port name that is no port name": (
        {
            "sidecars": [
                {"name": "s", "image": "s:1", "readinessProbe": {"httpGet": {"port": "Web_UI"}}}
            ]
        },
        "readinessProbe.httpGet.port: must be a port from 1 to 65535, or a port's name",
    ),
    "an HTTP probe over FTP": (
        {
            "sidecars": [
                {
                    "name": "s",
                    "image": "s:1",
                    "readinessProbe": {"httpGet": {"port": 80, "scheme": "FTP"}},
                }
            ]
        },
        "readinessProbe.httpGet.scheme: must be HTTP or HTTPS (as Kubernetes' HTTPGetAction)",
    ),
    "a TCP probe on port 70000": (
        {
            "sidecars": [
                {"name": "s", "image": "s:1", "livenessProbe": {"tcpSocket": {"port": 70000}}}
            ]
        },
        "livenessProbe.tcpSocket.port: must be a port from 1 to 65535",
    ),
    "a gRPC probe on port 70000": (
        {"sidecars": [{"name": "s", "image": "s:1", "readinessProbe": {"grpc": {"port": 70000}}}]},
        "readinessProbe.grpc.port: must be a port from 1 to 65535 (as Kubernetes' GRPCAction)",
    ),
    "a lifecycle hook without a handler": (
        {"sidecars": [{"name": "s", "image": "s:1", "lifecycle": {"preStop": {}}}]},
        "sidecars[s]: lifecycle.preStop: must be set with exactly one handler: exec, httpGet, "
        "tcpSocket or sleep (as Kubernetes' LifecycleHandler)",
    ),
    "a lifecycle hook that sleeps for less than nothing": (
        {
            "sidecars": [
                {"name": "s", "image": "s:1", "lifecycle": {"preStop": {"sleep": {"seconds": -1}}}}
            ]
        },
        "lifecycle.preStop.sleep.seconds: must be 0 or more (as Kubernetes' SleepAction)",
    ),
    "env from no source": (
        {"sidecars": [{"name": "s", "image": "s:1", "envFrom": [{"prefix": "A_"}]}]},
        "sidecars[s]: envFrom[0]: must be set with exactly one source: configMapRef or "
        "secretRef (as Kubernetes' EnvFromSource)",
    ),
    "env from two sources": (
        {
            "initContainers": [
                {
                    "name": "i",
                    "image": "i:1",
                    "envFrom": [{"configMapRef": {"name": "c"}, "secretRef": {"name": "s"}}],
                }
            ]
        },
        "initContainers[i]: envFrom[0]: must be set with exactly one source",
    ),
    "an env prefix with '='": (
        {
            "sidecars": [
                {
                    "name": "s",
                    "image": "s:1",
                    "envFrom": [{"prefix": "A=", "configMapRef": {"name": "c"}}],
                }
            ]
        },
        "sidecars[s]: envFrom[0].prefix: must be printable ASCII other than '='",
    ),
    "a probe on an init container that runs to completion": (
        {
            "initContainers": [
                {"name": "i", "image": "i:1", "readinessProbe": {"exec": {"command": ["true"]}}}
            ]
        },
        "initContainers[i].readinessProbe: an init container has no readinessProbe unless its "
        "restartPolicy is Always",
    ),
    "a lifecycle hook on an init container that runs to completion": (
        {
            "initContainers": [
                {
                    "name": "i",
                    "image": "i:1",
                    "lifecycle": {"postStart": {"exec": {"command": ["true"]}}},
                }
            ]
        },
        "initContainers[i].lifecycle: an init container has no lifecycle unless its "
        "restartPolicy is Always",
    ),
    "a hook that sleeps past the pod's grace period": (
        {
            "sidecars": [
                {"name": "s", "image": "s:1", "lifecycle": {"preStop": {"sleep": {"seconds": 331}}}}
            ]
        },
        "sidecars[s].lifecycle.preStop.sleep.seconds: a hook sleeps at most the pod's "
        "terminationGracePeriodSeconds, 330 (the actor's timeout and the sidecar's hand-off",
    ),
    "one host port for two containers": (
        {
            "sidecars": [
                {"name": "s", "image": "s:1", "ports": [{"containerPort": 80, "hostPort": 8080}]},
                {
                    "name": "t",
                    "image": "t:1",
                    "ports": [{"containerPort": 81, "hostPort": 8080, "protocol": "TCP"}],
                },
            ]
        },
        "sidecars[t].ports[0].hostPort: the host port 8080/TCP is taken by another port of the pod",
    ),
    "an env var from a label whose key is no label key": (
        {
            "env": [
                {"name": "A", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['a b']"}}}
            ]
        },
        "env[A]: valueFrom.fieldRef.fieldPath: must be metadata.name",
    ),
    "a label key with a prefix in capitals": (
        {
            "env": [
                {
                    "name": "A",
                    "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['Example.com/app']"}},
                }
            ]
        },
        "env[A]: valueFrom.fieldRef.fieldPath: must be",
    ),
    "a downward API file of a label whose key is no label key": (
        {
            "volumes": [
                {
                    "name": "d",
                    "downwardAPI": {
                        "items": [{"path": "x", "fieldRef": {"fieldPath": "metadata.labels['-x']"}}]
                    },
                }
            ]
        },
        "volumes[d]: downwardAPI.items[0].fieldRef.fieldPath: must be",
    ),
    "a service account token that expires within ten minutes": (
        {
            "volumes": [
                {
                    "name": "t",
                    "projected": {
                        "sources": [
                            {"serviceAccountToken": {"path": "token", "expirationSeconds": 60}}
                        ]
                    },
                }
            ]
        },
        "volumes[t]: projected.sources[0].serviceAccountToken.expirationSeconds: must be from 600 "
        "(ten minutes) to 4294967296 (2^32) seconds (as Kubernetes' ServiceAccountTokenProjection)",
    ),
    "a service account token outside its volume": (
        {
            "volumes": [
                {
                    "name": "t",
                    "projected": {"sources": [{"serviceAccountToken": {"path": "../token"}}]},
                }
            ]
        },
        "volumes[t]: projected.sources[0].serviceAccountToken.path: must be a relative path",
    ),
    "a readiness probe with a grace period": (
        {
            "sidecars": [
                {
                    "name": "s",
                    "image": "s:1",
                    "readinessProbe": {
                        "exec": {"command": ["true"]},
                        "terminationGracePeriodSeconds": 5,
                    },
                }
            ]
        },
        "sidecars[s]: readinessProbe.terminationGracePeriodSeconds: must be unset on a readiness "
        "probe (as Kubernetes' Container)",
    ),
    "a readiness probe with a grace period of 0": (
        {
            "sidecars": [
                {
                    "name": "s",
                    "image": "s:1",
                    "readinessProbe": {
                        "exec": {"command": ["true"]},
                        "terminationGracePeriodSeconds": 0,
                    },
                }
            ]
        },
        "readinessProbe.terminationGracePeriodSeconds: must be 1 or more, when set (and unset on "
        "a readiness probe)",
    ),
    "an HTTP header name with a space": (
        {
            "sidecars": [
                {
                    "name": "s",
                    "image": "s:1",
                    "readinessProbe": {
                        "httpGet": {"port": 80, "httpHeaders": [{"name": "X A", "value": "1"}]}
                    },
                }
            ]
        },
        "readinessProbe.httpGet.httpHeaders[0].name: must be a header name: letters, digits and '-'",
    ),
    "env from a ConfigMap without a name": (
        {"sidecars": [{"name": "s", "image": "s:1", "envFrom": [{"configMapRef": {}}]}]},
        "sidecars[s]: envFrom[0].configMapRef: must be set with a name (as Kubernetes' "
        "ConfigMapEnvSource)",
    ),
    "env from a Secret whose name is no object name": (
        {
            "sidecars": [
                {"name": "s", "image": "s:1", "envFrom": [{"secretRef": {"name": "Bad_Name"}}]}
            ]
        },
        "sidecars[s]: envFrom[0].secretRef.name: must be an object name",
    ),
    "a field read through another API version": (
        {
            "env": [
                {
                    "name": "A",
                    "valueFrom": {"fieldRef": {"fieldPath": "metadata.name", "apiVersion": "v2"}},
                }
            ]
        },
        "env[A]: valueFrom.fieldRef.apiVersion: must be v1 (or empty) (as Kubernetes' EnvVarSource)",
    ),
    "one host port twice in an init container": (
        {
            "initContainers": [
                {
                    "name": "i",
                    "image": "i:1",
                    "ports": [
                        {"containerPort": 80, "hostPort": 8080},
                        {"containerPort": 81, "hostPort": 8080},
                    ],
                }
            ]
        },
        "initContainers[i].ports[1].hostPort: the host port 8080/TCP is taken by another port of "
        "the init container",
    ),
    "a port protocol in lower case": (
        {
            "initContainers": [
                {"name": "i", "image": "i:1", "ports": [{"containerPort": 80, "protocol": "tcp"}]}
            ]
        },
        "initContainers[i]: ports[0].protocol: must be TCP, UDP or SCTP",
    ),
    "a termination message policy Kubernetes does not know": (
        {"initContainers": [{"name": "i", "image": "i:1", "terminationMessagePolicy": "fallback"}]},
        "initContainers[i]: terminationMessagePolicy: must be File or FallbackToLogsOnError",
    ),
    "a resize policy for a resource that cannot be resized": (
        {
            "initContainers": [
                {
                    "name": "i",
                    "image": "i:1",
                    "resizePolicy": [{"resourceName": "gpu", "restartPolicy": "NotRequired"}],
                }
            ]
        },
        "initContainers[i]: resizePolicy[0].resourceName: must be cpu or memory",
    ),
    "a negative user id": (
        {"initContainers": [{"name": "i", "image": "i:1", "securityContext": {"runAsUser": -1}}]},
        "initContainers[i]: securityContext.runAsUser: must be an id from 0 to 2147483647",
    ),
    "a group id past int32": (
        {
            "initContainers": [
                {"name": "i", "image": "i:1", "securityContext": {"runAsGroup": 2**31}}
            ]
        },
        "initContainers[i]: securityContext.runAsGroup: must be an id from 0 to 2147483647",
    ),
    "privileged without privilege escalation": (
        {
            "initContainers": [
                {
                    "name": "i",
                    "image": "i:1",
                    "securityContext": {"privileged": True, "allowPrivilegeEscalation": False},
                }
            ]
        },
        "initContainers[i]: securityContext.privileged: must be false or unset with "
        "allowPrivilegeEscalation: false",
    ),
    "CAP_SYS_ADMIN without privilege escalation": (
        {
            "initContainers": [
                {
                    "name": "i",
                    "image": "i:1",
                    "securityContext": {
                        "capabilities": {"add": ["CAP_SYS_ADMIN"]},
                        "allowPrivilegeEscalation": False,
                    },
                }
            ]
        },
        "initContainers[i]: securityContext.capabilities.add: must be without CAP_SYS_ADMIN",
    ),
    "an Unmasked proc mount (the pod keeps host users)": (
        {
            "initContainers": [
                {"name": "i", "image": "i:1", "securityContext": {"procMount": "Unmasked"}}
            ]
        },
        "initContainers[i]: securityContext.procMount: must be Default",
    ),
    "a Localhost seccomp profile without its file": (
        {
            "initContainers": [
                {
                    "name": "i",
                    "image": "i:1",
                    "securityContext": {"seccompProfile": {"type": "Localhost"}},
                }
            ]
        },
        "initContainers[i]: securityContext.seccompProfile: must be given a localhostProfile",
    ),
    "a profile file with another seccomp type": (
        {
            "initContainers": [
                {
                    "name": "i",
                    "image": "i:1",
                    "securityContext": {
                        "seccompProfile": {"type": "RuntimeDefault", "localhostProfile": "p"}
                    },
                }
            ]
        },
        "initContainers[i]: securityContext.seccompProfile.localhostProfile: must be a path "
        "below the kubelet's seccomp root, no '..', with type Localhost; unset with any other type",
    ),
    "a seccomp type in lower case": (
        {
            "initContainers": [
                {
                    "name": "i",
                    "image": "i:1",
                    "securityContext": {"seccompProfile": {"type": "runtimedefault"}},
                }
            ]
        },
        "initContainers[i]: securityContext.seccompProfile.type: must be RuntimeDefault",
    ),
    "a Localhost AppArmor profile without its file": (
        {
            "initContainers": [
                {
                    "name": "i",
                    "image": "i:1",
                    "securityContext": {"appArmorProfile": {"type": "Localhost"}},
                }
            ]
        },
        "initContainers[i]: securityContext.appArmorProfile: must be given a localhostProfile",
    ),
    "a Windows host process (the pod has no host network)": (
        {
            "initContainers": [
                {
                    "name": "i",
                    "image": "i:1",
                    "securityContext": {"windowsOptions": {"hostProcess": True}},
                }
            ]
        },
        "initContainers[i]: securityContext.windowsOptions.hostProcess: must be false or unset",
    ),
    "an env valueFrom with no source": (
        {"env": [{"name": "A", "valueFrom": {}}]},
        "env[A]: valueFrom: must be set with exactly one source",
    ),
    "an env valueFrom with two sources": (
        {
            "env": [
                {
                    "name": "A",
                    "valueFrom": {
                        "fieldRef": {"fieldPath": "metadata.name"},
                        "secretKeyRef": {"name": "s", "key": "k"},
                    },
                }
            ]
        },
        "env[A]: valueFrom: must be set with exactly one source",
    ),
    "a mount with subPath and subPathExpr": (
        {
            "volumes": [{"name": "v", "emptyDir": {}}],
            "volumeMounts": [{"name": "v", "mountPath": "/v", "subPath": "a", "subPathExpr": "b"}],
        },
        "volumeMounts[/v].subPathExpr: set subPath or subPathExpr, not both",
    ),
    "a mount propagation Kubernetes does not know": (
        {
            "volumes": [{"name": "v", "emptyDir": {}}],
            "volumeMounts": [{"name": "v", "mountPath": "/v", "mountPropagation": "bidirectional"}],
        },
        "volumeMounts[/v]: mountPropagation: must be None, HostToContainer or Bidirectional",
    ),
    "a Bidirectional mount in the runtime, which is not privileged": (
        {
            "volumes": [{"name": "v", "emptyDir": {}}],
            "volumeMounts": [{"name": "v", "mountPath": "/v", "mountPropagation": "Bidirectional"}],
        },
        "volumeMounts[/v].mountPropagation: Bidirectional propagation needs a privileged container",
    ),
    "a Bidirectional mount in a sidecar that is not privileged": (
        {
            "volumes": [{"name": "v", "emptyDir": {}}],
            "sidecars": [
                {
                    "name": "s",
                    "image": "s:1",
                    "volumeMounts": [
                        {"name": "v", "mountPath": "/v", "mountPropagation": "Bidirectional"}
                    ],
                }
            ],
        },
        "sidecars[s]: must be privileged (securityContext.privileged: true) to mount with "
        "Bidirectional propagation",
    ),
    "a recursively read-only mount that is not read-only": (
        {
            "volumes": [{"name": "v", "emptyDir": {}}],
            "volumeMounts": [{"name": "v", "mountPath": "/v", "recursiveReadOnly": "Enabled"}],
        },
        "volumeMounts[/v].recursiveReadOnly: needs readOnly: true on the same mount",
    ),
    "a recursiveReadOnly Kubernetes does not know": (
        {
            "volumes": [{"name": "v", "emptyDir": {}}],
            "volumeMounts": [
                {"name": "v", "mountPath": "/v", "readOnly": True, "recursiveReadOnly": "Yes"}
            ],
        },
        "volumeMounts[/v]: recursiveReadOnly: must be Disabled, IfPossible or Enabled",
    ),
    "a ConfigMap volume without a name": (
        {"volumes": [{"name": "v", "configMap": {}}]},
        "volumes[v]: configMap: must be given a name",
    ),
    "a Secret volume without a secretName": (
        {"volumes": [{"name": "v", "secret": {"defaultMode": 0o400}}]},
        "volumes[v]: secret: must be given a secretName",
    ),
    "a claim without a name": (
        {"volumes": [{"name": "v", "persistentVolumeClaim": {"claimName": ""}}]},
        "volumes[v]: persistentVolumeClaim.claimName: must be the claim's name",
    ),
    "a CSI driver name with a space": (
        {"volumes": [{"name": "v", "csi": {"driver": "Secrets Store"}}]},
        "volumes[v]: csi.driver: must be a CSI driver's name",
    ),
    "a recursively read-only mount that propagates": (
        {
            "volumes": [{"name": "v", "emptyDir": {}}],
            "volumeMounts": [
                {
                    "name": "v",
                    "mountPath": "/v",
                    "readOnly": True,
                    "recursiveReadOnly": "Enabled",
                    "mountPropagation": "HostToContainer",
                }
            ],
        },
        "volumeMounts[/v].recursiveReadOnly: needs mountPropagation None or unset",
    ),
    "a seccomp profile's file out of the kubelet's root": (
        {
            "initContainers": [
                {
                    "name": "i",
                    "image": "i:1",
                    "securityContext": {
                        "seccompProfile": {"type": "Localhost", "localhostProfile": "../p.json"}
                    },
                }
            ]
        },
        "initContainers[i]: securityContext.seccompProfile.localhostProfile: must be a path "
        "below the kubelet's seccomp root",
    ),
    "an AppArmor profile padded with spaces": (
        {
            "initContainers": [
                {
                    "name": "i",
                    "image": "i:1",
                    "securityContext": {
                        "appArmorProfile": {"type": "Localhost", "localhostProfile": " p "}
                    },
                }
            ]
        },
        "initContainers[i]: securityContext.appArmorProfile.localhostProfile: must be the "
        "profile's name, not blank nor padded",
    ),
    "an empty proc mount type": (
        {"initContainers": [{"name": "i", "image": "i:1", "securityContext": {"procMount": ""}}]},
        "initContainers[i]: securityContext.procMount: must be Default",
    ),
    "a CSI driver name with an underscore": (
        {"volumes": [{"name": "v", "csi": {"driver": "my_driver"}}]},
        "volumes[v]: csi.driver: must be a CSI driver's name",
    ),
    "a projected source with two sources": (
        {
            "volumes": [
                {
                    "name": "v",
                    "projected": {
                        "sources": [{"secret": {"name": "a"}, "configMap": {"name": "b"}}]
                    },
                }
            ]
        },
        "volumes[v]: projected.sources[0]: must be set with at most one source",
    ),
    "a downward API file with no field": (
        {"volumes": [{"name": "v", "downwardAPI": {"items": [{"path": "x"}]}}]},
        "volumes[v]: downwardAPI.items[0]: must be set with one of fieldRef or resourceFieldRef",
    ),
    "a downward API file of a resource without its container": (
        {
            "volumes": [
                {
                    "name": "v",
                    "downwardAPI": {
                        "items": [{"path": "x", "resourceFieldRef": {"resource": "limits.cpu"}}]
                    },
                }
            ]
        },
        "volumes[v]: downwardAPI.items[0].resourceFieldRef: must be given the containerName",
    ),
    "an image volume's pull policy in lower case": (
        {"volumes": [{"name": "v", "image": {"reference": "r:1", "pullPolicy": "always"}}]},
        "volumes[v]: image.pullPolicy: must be Always, IfNotPresent or Never",
    ),
    "a least replica count above the function's default most": (
        {"scaling": {"minReplicaCount": 20}},
        "scaling.minReplicaCount: 20 is above maxReplicaCount 10 (the function's default)",
    ),
    "a secretRefs Secret whose name is no object name": (
        {"secretRefs": [{"secretName": "My_Secret", "keys": [{"key": "t", "envVar": "T"}]}]},
        "secretRefs[My_Secret].secretName: not an object name",
    ),
    "a secretRefs key that is no key": (
        {"secretRefs": [{"secretName": "s", "keys": [{"key": "a b", "envVar": "T"}]}]},
        "secretRefs[s].keys[T].key: not a key",
    ),
    "a secretRefs key '..'": (
        {"secretRefs": [{"secretName": "s", "keys": [{"key": "..", "envVar": "T"}]}]},
        "secretRefs[s].keys[T].key: not a key",
    ),
    "a volume device of a volume the pod does not have": (
        {"sidecars": [{"name": "s", "image": "s:1", "volumeDevices": [_device("d", "/dev/d")]}]},
        "sidecars[s].volumeDevices[0].name: no volume named 'd' in the pod",
    ),
    "a volume device of a volume that is no claim": (
        {
            "volumes": [{"name": "d", "emptyDir": {}}],
            "sidecars": [{"name": "s", "image": "s:1", "volumeDevices": [_device("d", "/dev/d")]}],
        },
        "sidecars[s].volumeDevices[0].name: the volume 'd' is no claim: a block device is a "
        "persistentVolumeClaim's or an ephemeral volume's",
    ),
    "one volume as two devices of a container": (
        {
            "volumes": [_claim("d")],
            "initContainers": [
                {
                    "name": "i",
                    "image": "i:1",
                    "volumeDevices": [_device("d", "/dev/a"), _device("d", "/dev/b")],
                }
            ],
        },
        "initContainers[i].volumeDevices[1].name: the volume 'd' is a device twice in the container",
    ),
    "two volume devices at one path": (
        {
            "volumes": [_claim("d"), _claim("e")],
            "sidecars": [
                {
                    "name": "s",
                    "image": "s:1",
                    "volumeDevices": [_device("d", "/dev/a"), _device("e", "/dev/a")],
                }
            ],
        },
        "sidecars[s].volumeDevices[1].devicePath: /dev/a is the path of another device",
    ),
    "a volume device at a mount's path": (
        {
            "volumes": [_claim("d"), {"name": "m", "emptyDir": {}}],
            "sidecars": [
                {
                    "name": "s",
                    "image": "s:1",
                    "volumeMounts": [{"name": "m", "mountPath": "/dev/a"}],
                    "volumeDevices": [_device("d", "/dev/a")],
                }
            ],
        },
        "sidecars[s].volumeDevices[0].devicePath: /dev/a is where the container mounts a volume",
    ),
    "a volume both mounted and a device in one container": (
        {
            "volumes": [_claim("d")],
            "sidecars": [
                {
                    "name": "s",
                    "image": "s:1",
                    "volumeMounts": [{"name": "d", "mountPath": "/data"}],
                    "volumeDevices": [_device("d", "/dev/a")],
                }
            ],
        },
        "sidecars[s].volumeDevices[0].name: the volume 'd' is mounted in the container too",
    ),
    "a device path that climbs": (
        {
            "volumes": [_claim("d")],
            "sidecars": [
                {"name": "s", "image": "s:1", "volumeDevices": [_device("d", "/dev/../d")]}
            ],
        },
        "sidecars[s].volumeDevices[0].devicePath: must not contain '..'",
    ),
    "two resize policies for one resource": (
        {
            "sidecars": [
                {
                    "name": "s",
                    "image": "s:1",
                    "resizePolicy": [
                        {"resourceName": "cpu", "restartPolicy": "NotRequired"},
                        {"resourceName": "cpu", "restartPolicy": "RestartContainer"},
                    ],
                }
            ]
        },
        "sidecars[s].resizePolicy[1].resourceName: cpu has a resize policy already",
    ),
    "two files of a projected volume at one path": (
        {
            "volumes": [
                {
                    "name": "p",
                    "projected": {
                        "sources": [
                            {"secret": {"name": "a", "items": [{"key": "k", "path": "conf"}]}},
                            {"configMap": {"name": "b", "items": [{"key": "k", "path": "conf"}]}},
                        ]
                    },
                }
            ]
        },
        "volumes[p].projected.sources[1].configMap.items[0].path: conf is the path of another "
        "file of the volume",
    ),
    "a downward API file at a projected Secret's path": (
        {
            "volumes": [
                {
                    "name": "p",
                    "projected": {
                        "sources": [
                            {"secret": {"name": "a", "items": [{"key": "k", "path": "name"}]}},
                            {
                                "downwardAPI": {
                                    "items": [
                                        {"path": "name", "fieldRef": {"fieldPath": "metadata.name"}}
                                    ]
                                }
                            },
                        ]
                    },
                }
            ]
        },
        "volumes[p].projected.sources[1].downwardAPI.items[0].path: name is the path of another "
        "file of the volume",
    ),
    "a null port of a sidecar: a port without its number": (
        {"sidecars": [{"name": "s", "image": "s:1", "ports": [None]}]},
        "sidecars[s]: ports[0]: must be a map: Kubernetes reads a null item as one with nothing set",
    ),
    "a null envFrom source of an init container": (
        {"initContainers": [{"name": "i", "image": "i:1", "envFrom": [None]}]},
        "initContainers[i]: envFrom[0]: must be a map: Kubernetes reads a null item as one with "
        "nothing set",
    ),
    "a null item of a Secret volume": (
        {"volumes": [{"name": "s", "secret": {"secretName": "s", "items": [None]}}]},
        "volumes[s]: secret.items[0]: must be a map: Kubernetes reads a null item as one with nothing set",
    ),
    "an init container's restart policy Kubernetes does not know": (
        {"initContainers": [{"name": "i", "image": "i:1", "restartPolicy": "Sometimes"}]},
        "initContainers[i]: restartPolicy: must be Always",
    ),
    "a stop signal in a pod that names no OS": (
        {"sidecars": [{"name": "s", "image": "s:1", "lifecycle": {"stopSignal": "SIGUSR1"}}]},
        "sidecars[s]: lifecycle.stopSignal: must be unset: Kubernetes drops a stop signal unless "
        "its ContainerStopSignals feature is on, and then takes one only in a pod that names its "
        "OS (spec.os)",
    ),
    "tolerationSeconds past int64": (
        {
            "tolerations": [
                {
                    "key": "a",
                    "operator": "Exists",
                    "effect": "NoExecute",
                    "tolerationSeconds": 2**63,
                }
            ]
        },
        "tolerations[0].tolerationSeconds: Input should be less than or equal to 9223372036854775807",
    ),
    "an ephemeral volume without a claim template": (
        {"volumes": [{"name": "x", **{"ephemeral": {}}}]},
        "volumes[x]: ephemeral: must be given a volumeClaimTemplate",
    ),
    "an ephemeral claim without access modes": (
        {
            "volumes": [
                {
                    "name": "x",
                    **{
                        "ephemeral": {
                            "volumeClaimTemplate": {
                                "spec": {"resources": {"requests": {"storage": "1Gi"}}}
                            }
                        }
                    },
                }
            ]
        },
        "volumes[x]: ephemeral.volumeClaimTemplate.spec: must be given its accessModes and the storage",
    ),
    "an ephemeral claim's access mode Kubernetes does not know": (
        {
            "volumes": [
                {
                    "name": "x",
                    **{
                        "ephemeral": {
                            "volumeClaimTemplate": {
                                "spec": {
                                    "accessModes": ["ReadWrite"],
                                    "resources": {"requests": {"storage": "1Gi"}},
                                }
                            }
                        }
                    },
                }
            ]
        },
        "volumes[x]: ephemeral.volumeClaimTemplate.spec.accessModes[0]: must be at least one of",
    ),
    "ReadWriteOncePod with another access mode": (
        {
            "volumes": [
                {
                    "name": "x",
                    **{
                        "ephemeral": {
                            "volumeClaimTemplate": {
                                "spec": {
                                    "accessModes": ["ReadWriteOncePod", "ReadWriteOnce"],
                                    "resources": {"requests": {"storage": "1Gi"}},
                                }
                            }
                        }
                    },
                }
            ]
        },
        "volumes[x]: ephemeral.volumeClaimTemplate.spec.accessModes: must be at least one of",
    ),
    "an ephemeral claim that requests no storage": (
        {
            "volumes": [
                {
                    "name": "x",
                    **{
                        "ephemeral": {
                            "volumeClaimTemplate": {
                                "spec": {
                                    "accessModes": ["ReadWriteOnce"],
                                    "resources": {"requests": {}},
                                }
                            }
                        }
                    },
                }
            ]
        },
        "volumes[x]: ephemeral.volumeClaimTemplate.spec.resources.requests: must be given the storage the claim requests",
    ),
    "an ephemeral claim template with a name": (
        {
            "volumes": [
                {
                    "name": "x",
                    **{
                        "ephemeral": {
                            "volumeClaimTemplate": {
                                "metadata": {"name": "c"},
                                "spec": {
                                    "accessModes": ["ReadWriteOnce"],
                                    "resources": {"requests": {"storage": "1Gi"}},
                                },
                            }
                        }
                    },
                }
            ]
        },
        "volumes[x]: ephemeral.volumeClaimTemplate.metadata.name: must be labels and annotations only",
    ),
    "an ephemeral claim's volume mode Kubernetes does not know": (
        {
            "volumes": [
                {
                    "name": "x",
                    **{
                        "ephemeral": {
                            "volumeClaimTemplate": {
                                "spec": {
                                    "accessModes": ["ReadWriteOnce"],
                                    "volumeMode": "Raw",
                                    "resources": {"requests": {"storage": "1Gi"}},
                                }
                            }
                        }
                    },
                }
            ]
        },
        "volumes[x]: ephemeral.volumeClaimTemplate.spec.volumeMode: must be Block or Filesystem",
    ),
    "a CSI secret without its name": (
        {
            "volumes": [
                {"name": "x", **{"csi": {"driver": "d.example.com", "nodePublishSecretRef": {}}}}
            ]
        },
        "volumes[x]: csi.nodePublishSecretRef: must be given the Secret's name",
    ),
    "an env file of a volume the pod does not have": (
        {
            "env": [
                {
                    "name": "A",
                    "valueFrom": {
                        "fileKeyRef": {"volumeName": "nope", "path": "app.env", "key": "K"}
                    },
                }
            ]
        },
        "env[A].valueFrom.fileKeyRef.volumeName: no volume named 'nope' in the pod",
    ),
    "an env file of a volume that is no emptyDir": (
        {
            "volumes": [{"name": "c", "configMap": {"name": "c"}}],
            "sidecars": [
                {
                    "name": "s",
                    "image": "s:1",
                    "env": [
                        {
                            "name": "A",
                            "valueFrom": {
                                "fileKeyRef": {"volumeName": "c", "path": "app.env", "key": "K"}
                            },
                        }
                    ],
                }
            ],
        },
        "sidecars[s].env[0].valueFrom.fileKeyRef.volumeName: the volume 'c' is no emptyDir",
    ),
    "an env file's path out of its volume": (
        {
            "volumes": [{"name": "e", "emptyDir": {}}],
            "env": [
                {
                    "name": "A",
                    "valueFrom": {
                        "fileKeyRef": {"volumeName": "e", "path": "../app.env", "key": "K"}
                    },
                }
            ],
        },
        "env[A]: valueFrom.fileKeyRef.path: must be a relative path inside the volume",
    ),
    "an env file's key with '='": (
        {
            "volumes": [{"name": "e", "emptyDir": {}}],
            "env": [
                {
                    "name": "A",
                    "valueFrom": {
                        "fileKeyRef": {"volumeName": "e", "path": "app.env", "key": "K=1"}
                    },
                }
            ],
        },
        "env[A]: valueFrom.fileKeyRef.key: must be printable ASCII other than '=', at most 128 characters",
    ),
    "an env file's key past 128 characters": (
        {
            "volumes": [{"name": "e", "emptyDir": {}}],
            "env": [
                {
                    "name": "A",
                    "valueFrom": {
                        "fileKeyRef": {
                            "volumeName": "e",
                            "path": "app.env",
                            "key": "KKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKK",
                        }
                    },
                }
            ],
        },
        "env[A]: valueFrom.fileKeyRef.key: must be printable ASCII other than '='",
    ),
    "a mount of the state sockets in a pod without a state proxy": (
        {
            "sidecars": [
                {
                    "name": "s",
                    "image": "s:1",
                    "volumeMounts": [{"name": "state-sockets", "mountPath": "/x"}],
                }
            ]
        },
        "sidecars[s].volumeMounts[0].name: no volume named 'state-sockets' in the pod",
    ),
    "a runtime mount over the pod's /tmp by two leading slashes": (
        {
            "volumes": [{"name": "v", "emptyDir": {}}],
            "volumeMounts": [{"name": "v", "mountPath": "//tmp"}],
        },
        "volumeMounts[//tmp].mountPath: //tmp is where the platform mounts the pod's /tmp",
    ),
}


@pytest.mark.parametrize(("data", "said"), REFUSED.values(), ids=REFUSED.keys())
def test_what_the_api_server_refuses_is_refused_naming_the_field_and_flavor(
    data: dict[str, Any], said: str
) -> None:
    [message] = answer(data)
    assert said in message
    assert message.endswith('(from flavor "shape")')


ACCEPTED = {
    "replica counts the autoscaler never reads (scaling off)": {
        "scaling": {"enabled": False, "minReplicaCount": 20, "maxReplicaCount": 2}
    },
    "a port of each protocol, and one defaulted": {
        "initContainers": [
            {
                "name": "i",
                "image": "i:1",
                "ports": [
                    {"containerPort": 1, "protocol": "TCP"},
                    {"containerPort": 2, "protocol": "UDP"},
                    {"containerPort": 3, "protocol": "SCTP"},
                    {"containerPort": 4, "protocol": ""},
                ],
            }
        ]
    },
    "a security context Kubernetes takes": {
        "initContainers": [
            {
                "name": "i",
                "image": "i:1",
                "terminationMessagePolicy": "FallbackToLogsOnError",
                "resizePolicy": [{"resourceName": "memory", "restartPolicy": "RestartContainer"}],
                "securityContext": {
                    "runAsUser": 0,
                    "runAsGroup": 2147483647,
                    "capabilities": {"add": ["CAP_SYS_ADMIN"]},
                    "procMount": "Default",
                    "seccompProfile": {"type": "Localhost", "localhostProfile": "profiles/a.json"},
                    "appArmorProfile": {"type": "RuntimeDefault"},
                    "windowsOptions": {"hostProcess": False},
                },
            }
        ]
    },
    "a privileged sidecar with a Bidirectional mount": {
        "volumes": [{"name": "v", "emptyDir": {}}],
        "sidecars": [
            {
                "name": "s",
                "image": "s:1",
                "securityContext": {"privileged": True},
                "volumeMounts": [
                    {"name": "v", "mountPath": "/v", "mountPropagation": "Bidirectional"}
                ],
            }
        ],
    },
    "a projected source with no source, and a seccomp profile at the kubelet's root": {
        "volumes": [{"name": "j", "projected": {"sources": [{}]}}],
        "initContainers": [
            {
                "name": "i",
                "image": "i:1",
                "securityContext": {
                    "seccompProfile": {"type": "Localhost", "localhostProfile": ""},
                    "appArmorProfile": {"type": "Localhost", "localhostProfile": "k8s-default"},
                },
            }
        ],
    },
    "a recursively read-only mount of the runtime, kept as written": {
        "volumes": [{"name": "v", "emptyDir": {}}],
        "volumeMounts": [
            {"name": "v", "mountPath": "/v", "readOnly": True, "recursiveReadOnly": "Enabled"}
        ],
    },
    "mounts Kubernetes takes": {
        "volumes": [{"name": "v", "emptyDir": {}}, {"name": "w", "emptyDir": {}}],
        "volumeMounts": [
            {"name": "v", "mountPath": "/v", "readOnly": True, "recursiveReadOnly": "IfPossible"},
            {"name": "w", "mountPath": "/w", "subPathExpr": "$(POD)", "mountPropagation": "None"},
        ],
    },
    "volume sources Kubernetes takes": {
        "volumes": [
            {"name": "c", "configMap": {"name": "c"}},
            {"name": "s", "secret": {"secretName": "s"}},
            {"name": "p", "persistentVolumeClaim": {"claimName": "p"}},
            {"name": "d", "csi": {"driver": "secrets-store.csi.k8s.io"}},
            {"name": "e", "csi": {"driver": "EBS.csi.AWS.com"}},
            {"name": "n", "nfs": {"server": "nfs", "path": "/exports"}},
            {"name": "i", "image": {"reference": "r:1", "pullPolicy": "IfNotPresent"}},
            {"name": "g", "gitRepo": {"repository": "r", "directory": "."}},
            {
                "name": "j",
                "projected": {"sources": [{"secret": {"name": "a"}}, {"configMap": {"name": "b"}}]},
            },
            {
                "name": "w",
                "downwardAPI": {
                    "items": [
                        {"path": "n", "fieldRef": {"fieldPath": "metadata.name"}},
                        {
                            "path": "c",
                            "resourceFieldRef": {
                                "resource": "limits.cpu",
                                "containerName": "asya-runtime",
                            },
                        },
                    ]
                },
            },
        ]
    },
    "a secretRefs Secret and key of dots, dashes and underscores": {
        "secretRefs": [{"secretName": "team.keys-1", "keys": [{"key": ".env_A-1", "envVar": "A"}]}]
    },
    "a toleration of every taint": {"tolerations": [{"operator": "Exists"}]},
    "a toleration with an empty value": {"tolerations": [{"key": "a", "operator": "Equal"}]},
    "empty operator (Equal) and effect (every effect)": {
        "tolerations": [{"key": "a", "operator": "", "value": "b", "effect": ""}]
    },
    "an empty key with Exists": {"tolerations": [{"key": "", "operator": "Exists"}]},
    "a label key whose prefix has a part past 63 characters": {
        "nodeSelector": {"a" * 64 + ".example.com/k": "v"}
    },
    "tolerationSeconds with NoExecute": {
        "tolerations": [
            {"key": "a", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 30}
        ]
    },
    "label keys with a prefix, empty values": {
        "nodeSelector": {"cloud.google.com/gke-spot": "true", "example.com/empty": ""}
    },
    "ports, pull policy, modes and paths as Kubernetes takes them": {
        "initContainers": [
            {
                "name": "i",
                "image": "i:1",
                "imagePullPolicy": None,
                "ports": [{"containerPort": 65535, "hostPort": 0, "name": "metrics-2"}],
            }
        ],
        "volumes": [
            {"name": "h", "hostPath": {"path": "/x", "type": None}},
            {"name": "g", "hostPath": {"path": "/y", "type": ""}},
            {
                "name": "d",
                "downwardAPI": {
                    "items": [
                        {"path": "labels", "fieldRef": {"fieldPath": "metadata.labels"}},
                        {"path": "app", "fieldRef": {"fieldPath": "metadata.labels['app']"}},
                    ]
                },
            },
            {
                "name": "c",
                "configMap": {
                    "name": "settings.v1",
                    "defaultMode": 0o644,
                    "items": [{"key": "tls.crt", "path": "certs/..tls", "mode": 0o400}],
                },
            },
        ],
        "volumeMounts": [{"name": "c", "mountPath": "/c", "subPath": "..data"}],
    },
    "env read from fields and resources": {
        "env": [
            {"name": "A", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['app']"}}},
            {"name": "B", "valueFrom": {"fieldRef": {"fieldPath": "status.podIPs"}}},
            {"name": "E", "valueFrom": {"fieldRef": {"fieldPath": "spec.host"}}},
            {
                "name": "C",
                "valueFrom": {"resourceFieldRef": {"resource": "requests.hugepages-2Mi"}},
            },
            {"name": "D", "valueFrom": {"secretKeyRef": {"name": "db.v2", "key": "PASS_word.1"}}},
        ]
    },
    "labels and annotations by key, a token for ten minutes": {
        "env": [
            {
                "name": "A",
                "valueFrom": {
                    "fieldRef": {"fieldPath": "metadata.labels['app.kubernetes.io/name']"}
                },
            },
            {
                "name": "B",
                "valueFrom": {
                    "fieldRef": {"fieldPath": "metadata.annotations['Example.COM/Owner']"}
                },
            },
        ],
        "volumes": [
            {
                "name": "t",
                "projected": {
                    "sources": [
                        {
                            "serviceAccountToken": {
                                "path": "token",
                                "expirationSeconds": 600,
                                "audience": "sts.amazonaws.com",
                            }
                        },
                        {"serviceAccountToken": {"path": "default"}},
                    ]
                },
            }
        ],
    },
    "what Go reads absent as zero: a sleep of no seconds, a header without a value": {
        "sidecars": [
            {
                "name": "s",
                "image": "s:1",
                "lifecycle": {"preStop": {"sleep": {}}},
                "readinessProbe": {"httpGet": {"port": 80, "httpHeaders": [{"name": "X-Trace-1"}]}},
            }
        ]
    },
    "a field read through v1, one host port for an init container and a sidecar": {
        "env": [
            {
                "name": "A",
                "valueFrom": {"fieldRef": {"fieldPath": "metadata.name", "apiVersion": "v1"}},
            }
        ],
        "initContainers": [
            {"name": "i", "image": "i:1", "ports": [{"containerPort": 80, "hostPort": 8080}]}
        ],
        "sidecars": [
            {"name": "s", "image": "s:1", "ports": [{"containerPort": 80, "hostPort": 8080}]}
        ],
    },
    "one host port over two protocols or two host IPs": {
        "sidecars": [
            {"name": "s", "image": "s:1", "ports": [{"containerPort": 53, "hostPort": 53}]},
            {
                "name": "t",
                "image": "t:1",
                "ports": [
                    {"containerPort": 53, "hostPort": 53, "protocol": "UDP"},
                    {"containerPort": 54, "hostPort": 53, "hostIP": "10.0.0.1"},
                    {"containerPort": 55, "hostPort": 0},
                    {"containerPort": 56},
                ],
            },
        ]
    },
    "a hook that sleeps as long as the pod may take to stop": {
        "sidecars": [
            {"name": "s", "image": "s:1", "lifecycle": {"preStop": {"sleep": {"seconds": 330}}}}
        ]
    },
    "a longer sleep for an actor with a longer timeout": {
        "resiliency": {"actorTimeout": "1h"},
        "initContainers": [
            {
                "name": "i",
                "image": "i:1",
                "restartPolicy": "Always",
                "lifecycle": {"preStop": {"sleep": {"seconds": 3630}}},
            }
        ],
    },
    "probes and hooks as Kubernetes takes them": {
        "sidecars": [
            {
                "name": "s",
                "image": "s:1",
                "ports": [{"containerPort": 8080, "name": "http"}],
                "livenessProbe": {
                    "httpGet": {"port": "http", "path": "/healthz"},
                    "exec": None,
                    "successThreshold": 1,
                    "terminationGracePeriodSeconds": 10,
                },
                "startupProbe": {"tcpSocket": {"port": 8080}, "successThreshold": 0},
                "readinessProbe": {
                    "grpc": {"port": 9090},
                    "successThreshold": 3,
                    "periodSeconds": 0,
                    "initialDelaySeconds": 0,
                },
                "lifecycle": {
                    "preStop": {"sleep": {"seconds": 0}},
                    "postStart": {"httpGet": {"port": 80, "scheme": "HTTPS"}},
                },
                "envFrom": [
                    {"configMapRef": {"name": "c"}, "prefix": "A B:"},
                    {"secretRef": {"name": "s"}, "configMapRef": None},
                ],
            }
        ],
        "initContainers": [
            {
                "name": "i",
                "image": "i:1",
                "restartPolicy": "Always",
                "readinessProbe": {"exec": {"command": ["true"]}},
                "lifecycle": {"preStop": {"exec": {"command": ["sleep", "1"]}}},
            },
            {"name": "j", "image": "j:1", "livenessProbe": None},
        ],
    },
    "block devices of a claim and an ephemeral volume, beside mounts": {
        "volumes": [
            _claim("d"),
            {
                "name": "e",
                "ephemeral": {
                    "volumeClaimTemplate": {
                        "spec": {
                            "accessModes": ["ReadWriteOnce"],
                            "volumeMode": "Block",
                            "resources": {"requests": {"storage": "1Gi"}},
                        }
                    }
                },
            },
            {"name": "m", "emptyDir": {}},
        ],
        "sidecars": [
            {
                "name": "s",
                "image": "s:1",
                "volumeMounts": [{"name": "m", "mountPath": "/data"}],
                "volumeDevices": [_device("d", "/dev/d"), _device("e", "/dev/e")],
                "resizePolicy": [
                    {"resourceName": "cpu", "restartPolicy": "NotRequired"},
                    {"resourceName": "memory", "restartPolicy": "RestartContainer"},
                ],
            },
            # Another container may use the same claim as a device, at the same path.
            {"name": "t", "image": "t:1", "volumeDevices": [_device("d", "/dev/d")]},
        ],
    },
    "one path in two projected volumes, and a token at a Secret file's path": {
        "volumes": [
            {
                "name": name,
                "projected": {
                    "sources": [
                        {"secret": {"name": "a", "items": [{"key": "k", "path": "token"}]}},
                        {"serviceAccountToken": {"path": "token"}},
                    ]
                },
            }
            for name in ("p", "q")
        ]
    },
    "a projected volume with a null source, which Kubernetes takes as none": {
        "volumes": [{"name": "p", "projected": {"sources": [None]}}]
    },
    "older disks and claims as Kubernetes takes them": {
        "volumes": [
            {
                "name": "a",
                "iscsi": {
                    "targetPortal": "10.0.0.1:3260",
                    "iqn": "iqn.2001-04.com.example:disk",
                    "lun": 255,
                },
            },
            {"name": "b", "gcePersistentDisk": {"pdName": "d", "partition": 0}},
            {"name": "c", "fc": {"wwids": ["3600508b400105e210000900000490000"]}},
            {"name": "d", "fc": {"targetWWNs": ["500a0982991b8dc5"], "lun": 2}},
            {"name": "e", "flocker": {"datasetUUID": "5ad5c3b5"}},
            {
                "name": "f",
                "flexVolume": {"driver": "example.com/lvm", "options": {"example.com/size": "1"}},
            },
            {
                "name": "g",
                "azureDisk": {
                    "diskName": "d",
                    "diskURI": "/subscriptions/s/d",
                    "kind": "Managed",
                    "cachingMode": "ReadOnly",
                },
            },
            {"name": "h", "storageos": {"volumeName": "data", "volumeNamespace": ""}},
            {
                "name": "i",
                "csi": {"driver": "d.example.com", "nodePublishSecretRef": {"name": "s"}},
            },
            {
                "name": "j",
                "ephemeral": {
                    "volumeClaimTemplate": {
                        "metadata": {
                            "labels": {"app": "x"},
                            "annotations": {"Example.com/Note": "n"},
                        },
                        "spec": {
                            "accessModes": ["ReadWriteOncePod"],
                            "storageClassName": "",
                            "resources": {"requests": {"storage": "10Gi"}},
                        },
                    }
                },
            },
        ]
    },
    "a value read from an env file an init container writes": {
        "volumes": [{"name": "e", "emptyDir": {}}],
        "initContainers": [
            {"name": "i", "image": "i:1", "volumeMounts": [{"name": "e", "mountPath": "/env"}]}
        ],
        "env": [
            {
                "name": "A",
                "valueFrom": {
                    "fileKeyRef": {"volumeName": "e", "path": "config.env", "key": "DB_HOST"}
                },
            }
        ],
    },
    "what the API server reads as unset: an empty or null counterpart, zero metadata": {
        "volumes": [
            {"name": "a", "fc": {"targetWWNs": ["500a0982991b8dc5"], "lun": 0, "wwids": []}},
            {"name": "b", "fc": {"targetWWNs": None, "wwids": ["3600508b400105e21"]}},
            {"name": "c", "flocker": {"datasetName": "d", "datasetUUID": ""}},
            {"name": "d", "flocker": {"datasetName": None, "datasetUUID": "abc"}},
            {
                "name": "e",
                "ephemeral": {
                    "volumeClaimTemplate": {
                        "metadata": {"creationTimestamp": None, "name": "", "generation": 0},
                        "spec": {
                            "accessModes": ["ReadWriteOnce"],
                            "resources": {"requests": {"storage": "1Gi"}},
                        },
                    }
                },
            },
            {"name": "f", "cinder": {"volumeID": "v", "secretRef": {"name": "My_Secret"}}},
            {"name": "g", "storageos": {"volumeName": "v", "secretRef": {"name": "My_Secret"}}},
        ]
    },
    "an env file in the pod's own /tmp, and the state sockets mounted beside a state proxy": {
        "env": [
            {
                "name": "A",
                "valueFrom": {"fileKeyRef": {"volumeName": "tmp", "path": "a.env", "key": "A"}},
            }
        ],
        "stateProxy": [
            {"name": "cache", "mount": {"path": "/cache"}, "connector": {"image": "c:1"}}
        ],
        "sidecars": [
            {
                "name": "s",
                "image": "s:1",
                "volumeMounts": [{"name": "state-sockets", "mountPath": "/x"}],
            }
        ],
    },
}


@pytest.mark.parametrize("data", ACCEPTED.values(), ids=ACCEPTED.keys())
def test_what_the_api_server_accepts_renders(data: dict[str, Any]) -> None:
    assert answer(data) == []


@pytest.mark.parametrize(
    ("kind", "listed"),
    [("EnvVarSource", kube_rules.ENV_SOURCES), ("VolumeProjection", volume_rules.PROJECTIONS)],
)
def test_exactly_one_source_lists_every_source_kubernetes_has(
    kind: str, listed: tuple[str, ...]
) -> None:
    # A source the schema gained and the list lacks would be refused as none.
    assert set(listed) == set(kube_schemas.definitions()[kube_schemas.CORE + kind]["properties"])


def test_counts_from_two_layers_name_both() -> None:
    with pytest.raises(FlavorError) as refused:
        resolve(
            {"scaling": {"maxReplicaCount": 2}},
            flavor("scale-big", {"scaling": {"minReplicaCount": 5}}),
        )
    assert str(refused.value) == (
        "invalid flavor data: scaling.minReplicaCount: 5 is above maxReplicaCount 2 "
        '(from the actor\'s spec) (from flavor "scale-big")'
    )


def test_no_two_rule_tables_write_rules_for_one_type() -> None:
    # kube_rules takes the tables in one after another: a type in two would lose one's rules.
    tables = [probe_rules.RULES, volume_rules.RULES, storage_rules.RULES, security_rules.RULES]
    kinds = [kind for table in tables for kind in table]
    assert len(kinds) == len(set(kinds))
    assert set(kinds) <= set(kube_rules.RULES)
