"""The volume kinds the platform allows and its Pod Security level, refused naming field and source."""

from __future__ import annotations

import copy
from typing import Any

import yaml
from click.testing import CliRunner
from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from google.protobuf import json_format

from function import runner as fn
from function.cli.main import cli
from function.models.observed import is_wrapped
from tests import support

# The issue's actor: the node's root filesystem, a privileged sidecar mounting it, port 22.
HOST_ROOT: dict[str, Any] = {
    "volumes": [{"name": "root", "hostPath": {"path": "/"}}],
    "sidecars": [
        {
            "name": "debug",
            "image": "busybox:1",
            "securityContext": {"privileged": True},
            "volumeMounts": [{"name": "root", "mountPath": "/host"}],
            "ports": [{"containerPort": 22, "hostPort": 22}],
        }
    ],
}


def answer(
    actor: dict[str, Any],
    settings: dict[str, Any] | None = None,
    flavor: dict[str, Any] | None = None,
) -> fnv1.RunFunctionResponse:
    xr = copy.deepcopy(support.MINIMAL_XR)
    xr["spec"] |= actor
    if flavor is not None:
        xr["spec"]["flavors"] = ["host"]
    req = support.request(xr, input=support.struct(settings or {}))
    if flavor is not None:
        req.required_resources["flavor-host"].items.add().resource.update(
            {"metadata": {"name": "host"}, "data": flavor}
        )
    return fn.FunctionRunner().answer(req).message()


def pod(rsp: fnv1.RunFunctionResponse) -> dict[str, Any]:
    body = json_format.MessageToDict(rsp.desired.resources["deployment"].resource)
    deployment = body["spec"]["forProvider"]["manifest"] if is_wrapped(body) else body
    return deployment["spec"]["template"]["spec"]  # type: ignore[no-any-return]


def test_the_host_root_actor_is_refused_under_baseline_naming_each_field() -> None:
    [message] = support.fatal_messages(answer(HOST_ROOT))
    assert message.startswith(
        "invalid actor spec: volumes[root].hostPath: hostPath volumes are not allowed"
    )
    assert (
        "sidecars[debug].securityContext.privileged: Pod Security baseline (Input podSecurity) forbids privileged containers (from the actor's spec)"
        in message
    )
    assert (
        "sidecars[debug].ports[0].hostPort: Pod Security baseline (Input podSecurity) forbids host ports"
        in message
    )


def test_the_same_from_a_flavor_is_blamed_on_the_flavor() -> None:
    [message] = support.fatal_messages(answer({}, flavor=HOST_ROOT))
    assert message.startswith("invalid flavor data: volumes[root].hostPath:")
    assert '(from flavor "host")' in message


def test_allowed_hostpath_still_needs_the_privileged_level() -> None:
    settings = {"allowedVolumes": ["emptyDir", "hostPath"]}
    [message] = support.fatal_messages(answer(HOST_ROOT, settings))
    assert (
        "volumes[root].hostPath: Pod Security baseline (Input podSecurity) forbids hostPath volumes"
        in message
    )


def test_the_host_root_actor_renders_when_the_platform_opts_out() -> None:
    settings = {"podSecurity": "privileged", "allowedVolumes": ["emptyDir", "hostPath"]}
    rsp = answer(HOST_ROOT, settings)
    assert support.fatal_messages(rsp) == []
    spec = pod(rsp)
    assert {"name": "root", "hostPath": {"path": "/"}} in spec["volumes"]
    [debug] = [c for c in spec["containers"] if c["name"] == "debug"]
    assert debug["securityContext"] == {"privileged": True}


def test_a_kind_not_allowed_names_the_kind_and_the_allowed_ones() -> None:
    nfs = {"volumes": [{"name": "data", "nfs": {"server": "nfs.local", "path": "/data"}}]}
    [message] = support.fatal_messages(answer(nfs))
    assert message == (
        "invalid actor spec: volumes[data].nfs: nfs volumes are not allowed: the platform allows "
        "configMap, csi, downwardAPI, emptyDir, ephemeral, image, persistentVolumeClaim, "
        "projected, secret (Input allowedVolumes) (from the actor's spec)"
    )
    assert support.fatal_messages(answer(nfs, {"allowedVolumes": ["nfs"]})) == []


def test_restricted_refuses_a_sidecar_that_keeps_privileges() -> None:
    sidecar = {"sidecars": [{"name": "proxy", "image": "p:1"}]}
    [message] = support.fatal_messages(answer(sidecar, {"podSecurity": "restricted"}))
    assert (
        "sidecars[proxy].securityContext.allowPrivilegeEscalation: Pod Security restricted"
        in message
    )
    assert "sidecars[proxy].securityContext.capabilities.drop: Pod Security restricted" in message
    hardened = {
        "allowPrivilegeEscalation": False,
        "capabilities": {"drop": ["ALL"]},
    }
    sidecar["sidecars"][0]["securityContext"] = hardened
    assert support.fatal_messages(answer(sidecar, {"podSecurity": "restricted"})) == []


def test_baseline_takes_the_default_capabilities_and_runtime_default_profiles() -> None:
    context = {
        "capabilities": {"add": ["NET_BIND_SERVICE", "CHOWN"]},
        "seccompProfile": {"type": "RuntimeDefault"},
        "procMount": "Default",
    }
    actor = {"sidecars": [{"name": "proxy", "image": "p:1", "securityContext": context}]}
    assert support.fatal_messages(answer(actor)) == []
    context["capabilities"]["add"].append("SYS_ADMIN")
    [message] = support.fatal_messages(answer(actor))
    assert "forbids adding SYS_ADMIN" in message


def test_under_restricted_the_platforms_containers_and_the_pod_meet_it() -> None:
    actor = {
        "stateProxy": [
            {"name": "cache", "mount": {"path": "/state"}, "connector": {"image": "s:1"}}
        ]
    }
    spec = pod(answer(actor, {"podSecurity": "restricted"}))
    assert spec["securityContext"] == {
        "runAsNonRoot": True,
        "seccompProfile": {"type": "RuntimeDefault"},
    }
    assert len(spec["containers"]) == 3  # runtime, sidecar, one connector
    for container in spec["containers"]:
        assert container["securityContext"] == {
            "allowPrivilegeEscalation": False,
            "capabilities": {"drop": ["ALL"]},
        }, container["name"]
    # Under baseline the pod is rendered as before.
    assert "securityContext" not in pod(answer(actor))


POD_FIELDS: dict[str, Any] = {
    "securityContext": {"runAsNonRoot": True, "readOnlyRootFilesystem": True},
    "envFrom": [{"configMapRef": {"name": "settings"}}],
    "podSecurityContext": {
        "fsGroup": 2000,
        "sysctls": [{"name": "net.ipv4.tcp_syncookies", "value": "1"}],
    },
    "imagePullSecrets": [{"name": "registry"}],
    "affinity": {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["gpu"]}]}
                ]
            }
        }
    },
    "topologySpreadConstraints": [
        {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway"}
    ],
    "priorityClassName": "batch-high",
}


def test_the_pod_fields_render_where_kubernetes_expects_them_in_both_forms() -> None:
    for namespaced in (False, True):
        xr_metadata = {"name": "echo", "namespace": "team"} if namespaced else None
        xr = copy.deepcopy(support.MINIMAL_XR)
        xr["spec"] |= POD_FIELDS
        if xr_metadata:
            xr["metadata"] = xr_metadata
        rsp = fn.FunctionRunner().answer(support.request(xr, input=support.struct({}))).message()
        assert support.fatal_messages(rsp) == []
        spec = pod(rsp)
        [runtime] = [c for c in spec["containers"] if c["name"] == "asya-runtime"]
        assert runtime["securityContext"] == POD_FIELDS["securityContext"]
        assert runtime["envFrom"] == POD_FIELDS["envFrom"]
        assert spec["securityContext"] == POD_FIELDS["podSecurityContext"]
        for field in (
            "imagePullSecrets",
            "affinity",
            "topologySpreadConstraints",
            "priorityClassName",
        ):
            assert spec[field] == POD_FIELDS[field], field


def test_a_flavor_sets_them_and_the_actor_wins_by_the_merge_rules() -> None:
    flavor = {"imagePullSecrets": [{"name": "platform"}], "priorityClassName": "low"}
    actor = {"imagePullSecrets": [{"name": "team"}], "priorityClassName": "batch-high"}
    spec = pod(answer(actor, flavor=flavor))
    assert spec["imagePullSecrets"] == [{"name": "platform"}, {"name": "team"}]
    assert spec["priorityClassName"] == "batch-high"


def test_the_runtime_and_pod_contexts_are_held_to_the_level() -> None:
    actor = {
        "securityContext": {"privileged": True},
        "podSecurityContext": {"sysctls": [{"name": "kernel.msgmax", "value": "1"}]},
    }
    [message] = support.fatal_messages(answer(actor))
    assert (
        "securityContext.privileged: Pod Security baseline (Input podSecurity) forbids privileged containers"
        in message
    )
    assert (
        "podSecurityContext.sysctls[0].name: Pod Security baseline (Input podSecurity) forbids the sysctl kernel.msgmax"
        in message
    )
    restricted = {"securityContext": {"runAsUser": 1000}}
    rsp = answer(restricted, {"podSecurity": "restricted"})
    assert support.fatal_messages(rsp) == []
    [runtime] = [c for c in pod(rsp)["containers"] if c["name"] == "asya-runtime"]
    assert runtime["securityContext"] == {
        "allowPrivilegeEscalation": False,
        "capabilities": {"drop": ["ALL"]},
        "runAsUser": 1000,
    }


def test_explain_shows_where_the_pod_fields_came_from(tmp_path: Any) -> None:
    flavor = {
        "apiVersion": "apiextensions.crossplane.io/v1beta1",
        "kind": "EnvironmentConfig",
        "metadata": {"name": "spread", "labels": {"asya.sh/flavor": "spread"}},
        "data": {"priorityClassName": "batch", "imagePullSecrets": [{"name": "platform"}]},
    }
    actor = {
        "apiVersion": "asya.sh/v1alpha1",
        "kind": "AsyncActor",
        "metadata": {"name": "echo", "namespace": "team"},
        "spec": {
            **support.MINIMAL_XR["spec"],
            "flavors": ["spread"],
            "securityContext": {"runAsNonRoot": True},
        },
    }
    (tmp_path / "flavor.yaml").write_text(yaml.safe_dump(flavor))
    (tmp_path / "actor.yaml").write_text(yaml.safe_dump(actor))
    result = CliRunner().invoke(
        cli, ["explain", str(tmp_path / "actor.yaml"), "-e", str(tmp_path / "flavor.yaml")]
    )
    assert result.exit_code == 0, result.output
    assert "runAsNonRoot: true  # actor" in result.output
    assert "priorityClassName: batch  # flavor spread" in result.output
    assert "- name: platform  # flavor spread" in result.output


def test_an_api_server_refusal_in_the_v1_form_names_the_spec_field_and_its_source() -> None:
    # provider-kubernetes puts the API server's refusal, with its field path, on the
    # Object's Synced condition: the actor's status says which spec field that is.
    flavor = {"sidecars": [{"name": "proxy", "image": "p:1", "ports": [{"containerPort": 80}]}]}
    xr = copy.deepcopy(support.MINIMAL_XR)
    xr["spec"]["flavors"] = ["host"]
    req = support.request(xr, input=support.struct({}))
    req.required_resources["flavor-host"].items.add().resource.update(
        {"metadata": {"name": "host"}, "data": flavor}
    )
    rendered = json_format.MessageToDict(
        fn.FunctionRunner().answer(req).message().desired.resources["deployment"].resource
    )
    refusal = (
        'cannot create object: Deployment.apps "echo" is invalid: '
        "spec.template.spec.containers[2].ports[0].containerPort: Invalid value: 80: reserved"
    )
    rendered["status"] = {
        "conditions": [
            {"type": "Synced", "status": "False", "reason": "ReconcileError", "message": refusal}
        ]
    }
    req.observed.resources["deployment"].resource.update(rendered)
    rsp = fn.FunctionRunner().answer(req).message()
    status = json_format.MessageToDict(rsp.desired.composite.resource)["status"]
    message = status["infrastructure"]["workload"]["message"]
    assert message.startswith(
        'the API server refuses sidecars[proxy].ports[0].containerPort, from flavor "host": '
        "Deployment cannot apply: ReconcileError: cannot create object"
    ), message


def test_lint_judges_a_library_with_the_platforms_input(tmp_path: Any) -> None:
    flavor = {
        "apiVersion": "apiextensions.crossplane.io/v1beta1",
        "kind": "EnvironmentConfig",
        "metadata": {"name": "proxy", "labels": {"asya.sh/flavor": "proxy"}},
        "data": {"sidecars": [{"name": "proxy", "image": "p:1"}]},
    }
    (tmp_path / "flavor.yaml").write_text(yaml.safe_dump(flavor))
    composition = yaml.safe_load((support.ROOT / "examples" / "composition.yaml").read_text())
    composition["spec"]["pipeline"][0]["input"]["podSecurity"] = "restricted"
    (tmp_path / "composition.yaml").write_text(yaml.safe_dump(composition))
    lint = ["flavors", "lint", str(tmp_path / "flavor.yaml")]
    assert CliRunner().invoke(cli, lint).exit_code == 0
    result = CliRunner().invoke(cli, [*lint, "--composition", str(tmp_path / "composition.yaml")])
    assert result.exit_code == 1, result.output
    assert (
        "sidecars[proxy].securityContext.allowPrivilegeEscalation: Pod Security restricted "
        '(Input podSecurity) requires allowPrivilegeEscalation: false (from flavor "proxy")'
    ) in result.output
