"""The real API server's Pod Security admission judges the function's level, both ways.

For generated actors whose sidecars and volumes ask for more or less than a level
allows, at baseline and at restricted: the function refuses the actor on Pod Security
grounds exactly when the pod it would otherwise render draws a PodSecurity warning from
a real kube-apiserver whose namespace is labelled with that level. A refusal the server
would not make is a false refusal, and fails as surely as a pod it would refuse.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from google.protobuf import json_format
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from function import runner as fn
from function.models import pod, security
from function.models.observed import is_wrapped
from function.models.security import VOLUME_KINDS
from tests import support
from tests.cluster import rig

# It applies Deployments only: no provider CRD is needed.
NEEDS_SCHEMAS = False
LEVELS = ("baseline", "restricted")
EVERY_KIND = sorted(VOLUME_KINDS)

CONTEXTS = st.fixed_dictionaries(
    {},
    optional={
        "privileged": st.booleans(),
        "allowPrivilegeEscalation": st.booleans(),
        "runAsNonRoot": st.booleans(),
        "runAsUser": st.sampled_from([0, 1000]),
        "procMount": st.sampled_from(["Default", "Unmasked"]),
        "capabilities": st.fixed_dictionaries(
            {},
            optional={
                "add": st.lists(
                    st.sampled_from(["NET_BIND_SERVICE", "CHOWN", "SYS_ADMIN", "NET_RAW"]),
                    max_size=2,
                    unique=True,
                ),
                "drop": st.sampled_from([["ALL"], ["NET_RAW"]]),
            },
        ),
        "seccompProfile": st.sampled_from([{"type": "RuntimeDefault"}, {"type": "Unconfined"}]),
        "appArmorProfile": st.sampled_from([{"type": "RuntimeDefault"}, {"type": "Unconfined"}]),
        "seLinuxOptions": st.sampled_from(
            [{"type": "container_t"}, {"type": "spc_t"}, {"user": "system_u"}, {"level": "s0:c1"}]
        ),
    },
)
SIDECARS = st.lists(
    st.fixed_dictionaries(
        {"name": st.sampled_from(["proxy", "exporter"]), "image": st.just("p:1")},
        optional={
            "securityContext": CONTEXTS,
            "ports": st.sampled_from(
                [[{"containerPort": 8080}], [{"containerPort": 22, "hostPort": 22}]]
            ),
            "readinessProbe": st.sampled_from(
                [{"tcpSocket": {"port": 8080}}, {"tcpSocket": {"port": 8080, "host": "10.0.0.1"}}]
            ),
        },
    ),
    max_size=2,
    unique_by=lambda c: c["name"],
)
VOLUMES = st.lists(
    st.sampled_from(
        [
            {"name": "scratch", "emptyDir": {}},
            {"name": "host", "hostPath": {"path": "/var/log"}},
            {"name": "share", "nfs": {"server": "nfs.local", "path": "/share"}},
            {"name": "keys", "secret": {"secretName": "keys"}},
        ]
    ),
    max_size=2,
    unique_by=lambda v: v["name"],
)
POD_CONTEXTS = st.sampled_from(
    [
        {"runAsNonRoot": True},
        {"runAsNonRoot": False},
        {"runAsUser": 0},
        {"fsGroup": 2000},
        {"seccompProfile": {"type": "Unconfined"}},
        {"seLinuxOptions": {"type": "spc_t"}},
        {"sysctls": [{"name": "net.ipv4.tcp_syncookies", "value": "1"}]},
        {"sysctls": [{"name": "kernel.msgmax", "value": "65536"}]},
    ]
)
ACTORS = st.fixed_dictionaries(
    {},
    optional={
        "sidecars": SIDECARS,
        "volumes": VOLUMES,
        "securityContext": CONTEXTS,
        "podSecurityContext": POD_CONTEXTS,
    },
)


@pytest.fixture(scope="module")
def namespaces(kube: rig.Kube) -> dict[str, str]:
    """A namespace per level, labelled for Pod Security to warn at it (as `enforce` would refuse)."""
    made = {}
    for level in LEVELS:
        name = f"pod-security-{level}"
        labels = {
            "pod-security.kubernetes.io/warn": level,
            "pod-security.kubernetes.io/warn-version": "latest",
        }
        kube.apply(
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}}
        )
        made[level] = name
    return made


def answer(actor: dict[str, Any], level: str) -> fnv1.RunFunctionResponse:
    xr = copy.deepcopy(support.MINIMAL_XR)
    xr["spec"] |= actor
    settings = {"podSecurity": level, "allowedVolumes": EVERY_KIND}
    return fn.FunctionRunner().answer(support.request(xr, input=support.struct(settings))).message()


def deployment(rsp: fnv1.RunFunctionResponse) -> dict[str, Any]:
    body = json_format.MessageToDict(rsp.desired.resources["deployment"].resource)
    return body["spec"]["forProvider"]["manifest"] if is_wrapped(body) else body  # type: ignore[no-any-return]


def as_rendered_at(manifest: dict[str, Any], level: str) -> dict[str, Any]:
    """The pod the function would render at the level, had it not refused the actor's parts."""
    manifest = copy.deepcopy(manifest)
    if level == "restricted":
        template = manifest["spec"]["template"]["spec"]
        template["securityContext"] = security.pod_context(level, template.get("securityContext"))
        for container in template["containers"]:
            if container["name"] in (pod.RUNTIME, pod.SIDECAR) or container["name"].startswith(
                pod.CONNECTOR_PREFIX
            ):
                own = container.get("securityContext")
                container["securityContext"] = security.container_context(level, own)
    return manifest


def server_warns(kube: rig.Kube, manifest: dict[str, Any], namespace: str) -> list[str]:
    body = copy.deepcopy(manifest)
    body["metadata"] = {"name": body["metadata"]["name"], "namespace": namespace}
    warnings: list[str] = []
    try:
        kube.apply(body, dry_run=True, warnings=warnings)
    except rig.KubeError as refused:
        # The level's demands laid over what the actor asked can contradict it outright
        # (privileged beside allowPrivilegeEscalation: false): refused, not warned of.
        return [str(refused)]
    return [w for w in warnings if "PodSecurity" in w]


def refused_for_pod_security(rsp: fnv1.RunFunctionResponse) -> list[str]:
    return [m for m in support.fatal_messages(rsp) if "Pod Security" in m]


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(actor=ACTORS)
def test_the_function_refuses_what_pod_security_would_and_nothing_else(
    kube: rig.Kube, namespaces: dict[str, str], actor: dict[str, Any]
) -> None:
    opened = answer(actor, "privileged")
    if support.fatal_messages(opened):
        event("refused for other reasons")
        return
    for level in LEVELS:
        ours = refused_for_pod_security(answer(actor, level))
        theirs = server_warns(kube, as_rendered_at(deployment(opened), level), namespaces[level])
        event(f"{level}: {'refused' if ours else 'rendered'}")
        assert bool(ours) == bool(theirs), (level, ours, theirs)
