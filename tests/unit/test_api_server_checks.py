"""What the API server refuses beyond its schemas, in the parts a spec supplies, is refused first.

Each row is a rule of Kubernetes' pod validation; each refusal names the field and the
flavor that set it. What it accepts renders.
"""

from __future__ import annotations

from typing import Any

import pytest

from function import runner as fn
from function.errors import FlavorError
from function.models.security import VOLUME_KINDS
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
    "a label value ending in a newline": (
        {"tolerations": [{"key": "a", "value": "b\n"}]},
        "tolerations[0]: not a label value",
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
    "a least replica count above the function's default most": (
        {"scaling": {"minReplicaCount": 20}},
        "scaling.minReplicaCount: 20 is above the function's default maxReplicaCount 10",
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


def test_counts_from_two_layers_name_both() -> None:
    with pytest.raises(FlavorError) as refused:
        resolve(
            {"scaling": {"maxReplicaCount": 2}},
            flavor("scale-big", {"scaling": {"minReplicaCount": 5}}),
        )
    assert str(refused.value) == (
        "invalid flavor data: scaling.minReplicaCount: 5 is above maxReplicaCount 2 "
        'of the actor\'s spec (from flavor "scale-big")'
    )


def test_counts_from_one_flavor_name_it_once() -> None:
    with pytest.raises(FlavorError) as refused:
        resolve({}, flavor("scale-odd", {"scaling": {"minReplicaCount": 5, "maxReplicaCount": 2}}))
    assert str(refused.value) == (
        "invalid flavor data: scaling.minReplicaCount: 5 is above maxReplicaCount 2 "
        '(from flavor "scale-odd")'
    )
