"""Focused checks per renderer: the behaviours SPEC §6 and the issue list."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from function.compose import renderers
from function.compose.renderers import containers, meta, transports
from function.errors import InputError, SpecError
from function.models import input as fn_input
from function.models import keda as keda_names
from function.models import pod as pod_model
from tests.unit.render.plans import env, manifest, plan, stage

# IRSA as a cluster turns it on: with the account its role ARN pattern names.
IRSA = {"irsa": {"enabled": True}, "aws": {"accountId": "111122223333"}}


def deployment(**kwargs: object) -> dict:
    return manifest(renderers.render_all(plan(**kwargs))["deployment"])  # type: ignore[arg-type]


def pod(**kwargs: object) -> dict:
    return deployment(**kwargs)["spec"]["template"]["spec"]


def test_replicas_are_omitted_while_keda_scales() -> None:
    assert "replicas" not in deployment()["spec"]


def test_scaling_disabled_renders_fixed_replicas_and_no_keda_objects() -> None:
    rendered = renderers.render_all(
        plan({"scaling": {"enabled": False}, "replicas": 3}, observed=stage("ready"))
    )
    assert manifest(rendered["deployment"])["spec"]["replicas"] == 3
    assert "triggerauthentication" not in rendered
    assert "scaledobject" not in rendered


def test_scaled_object_waits_for_the_queue_url() -> None:
    assert "scaledobject" not in renderers.render_all(plan(observed=stage("queue-no-url")))
    assert "scaledobject" in renderers.render_all(plan(observed=stage("queue-url")))


def test_scaled_object_keeps_its_known_url_when_the_queue_loses_it() -> None:
    observed = stage("ready")
    del observed["sqs-queue"]["status"]["atProvider"]["id"]
    del observed["sqs-queue"]["status"]["atProvider"]["url"]
    rendered = renderers.render_all(plan(observed=observed))
    trigger = manifest(rendered["scaledobject"])["spec"]["triggers"][0]
    assert trigger["metadata"]["queueURL"].endswith("/asya-asya-text-processor")


def test_scaled_object_carries_scaling_advanced_and_additional_triggers() -> None:
    extra = {
        "type": "cron",
        "metadata": {
            "timezone": "UTC",
            "start": "0 8 * * *",
            "end": "0 9 * * *",
            "desiredReplicas": "2",
        },
    }
    rendered = renderers.render_all(
        plan(
            {
                "scaling": {
                    "minReplicaCount": 1,
                    "maxReplicaCount": 7,
                    "queueLength": 3,
                    "advanced": {
                        "restoreToOriginalReplicaCount": True,
                        "formula": "queue * 2",
                        "target": "5",
                        "metricType": "AverageValue",
                    },
                    "additionalTriggers": [extra],
                }
            },
            observed=stage("queue-url"),
        )
    )
    spec = manifest(rendered["scaledobject"])["spec"]
    assert (spec["minReplicaCount"], spec["maxReplicaCount"]) == (1, 7)
    assert spec["triggers"][0]["metadata"]["queueLength"] == "3"
    assert spec["triggers"][1] == extra
    assert spec["advanced"]["restoreToOriginalReplicaCount"] is True
    assert spec["advanced"]["scalingModifiers"] == {
        "formula": "queue * 2",
        "target": "5",
        "metricType": "AverageValue",
    }


def test_irsa_off_renders_no_service_account() -> None:
    actor = plan()
    assert "serviceaccount" not in renderers.render_all(actor)
    assert "serviceAccountName" not in pod()


def test_irsa_on_renders_the_role_with_namespace_and_account_substituted() -> None:
    settings = {"irsa": {"enabled": True}, "aws": {"accountId": "111122223333"}}
    rendered = renderers.render_all(plan(settings=settings))
    account = manifest(rendered["serviceaccount"])
    assert account["metadata"]["name"] == "asya-actors"
    assert account["metadata"]["annotations"] == {
        "eks.amazonaws.com/role-arn": "arn:aws:iam::111122223333:role/asya-actors-team"
    }
    assert pod(settings=settings)["serviceAccountName"] == "asya-actors"


def test_an_explicit_role_arn_is_used_as_is() -> None:
    settings = {"irsa": {"enabled": True, "roleArn": "arn:aws:iam::210987654321:role/fixed"}}
    account = manifest(renderers.render_all(plan(settings=settings))["serviceaccount"])
    assert (
        account["metadata"]["annotations"]["eks.amazonaws.com/role-arn"]
        == "arn:aws:iam::210987654321:role/fixed"
    )


def test_keda_pod_identity_and_secret_modes() -> None:
    identity = manifest(renderers.render_all(plan())["triggerauthentication"])
    # Said out loud: KEDA's own operator identity (KEDA's docs and code disagree on the
    # default when unset).
    assert identity["spec"] == {"podIdentity": {"provider": "aws", "identityOwner": "keda"}}
    secret = manifest(
        renderers.render_all(
            plan(settings={"keda": {"authProvider": "secret", "secretRef": {"name": "aws-creds"}}})
        )["triggerauthentication"]
    )
    assert secret["spec"] == {
        "secretTargetRef": [
            {"parameter": "awsAccessKeyID", "name": "aws-creds", "key": "AWS_ACCESS_KEY_ID"},
            {
                "parameter": "awsSecretAccessKey",
                "name": "aws-creds",
                "key": "AWS_SECRET_ACCESS_KEY",
            },
        ]
    }


def test_queue_name_tags_redrive_and_provider_config() -> None:
    settings = {
        "aws": {
            "accountId": "123456789012",
            "region": "eu-west-1",
            "tags": {"cost": "ml"},
            "providerConfigName": "aws-prod",
        },
        "sqs": {"dlq": {"maxReceiveCount": 7}},
    }
    dlq_arn = "arn:aws:sqs:eu-west-1:123456789012:asya-team-dlq"
    dlq = {
        "metadata": {"name": "asya-team-dlq", "labels": {"asya.sh/role": "dlq"}},
        "spec": {"forProvider": {"name": "asya-team-dlq"}},
        "status": {"atProvider": {"arn": dlq_arn}},
    }
    queue = renderers.render_all(plan(settings=settings, dead_letter_queues=[dlq]))["sqs-queue"]
    for_provider = queue["spec"]["forProvider"]
    assert for_provider["name"] == "asya-team-echo"
    assert for_provider["region"] == "eu-west-1"
    assert for_provider["tags"] == {
        "asya.sh/namespace": "team",
        "asya.sh/actor": "echo",
        "cost": "ml",
    }
    assert json.loads(for_provider["redrivePolicy"]) == {
        "deadLetterTargetArn": dlq_arn,
        "maxReceiveCount": 7,
    }
    assert queue["spec"]["providerConfigRef"] == {"name": "aws-prod"}
    assert queue["spec"]["deletionPolicy"] == "Delete"


def test_no_redrive_policy_without_an_account() -> None:
    assert "redrivePolicy" not in renderers.render_all(plan())["sqs-queue"]["spec"]["forProvider"]


def test_a_queue_name_longer_than_sqs_allows_is_a_clear_error() -> None:
    with pytest.raises(InputError, match="SQS allows 80"):
        transports.SQS().refuse(plan({"actor": "a" * 63}, namespace="n" * 20))


def dead_letter_queue(name: str) -> dict[str, Any]:
    return {
        "metadata": {"labels": {"asya.sh/role": "dlq"}},
        "spec": {"forProvider": {"name": name}},
    }


@pytest.mark.parametrize(
    ("namespace", "actor", "owner", "fetched"),
    [
        ("team", "dlq", "team", []),
        ("a", "b-dlq", "a-b", [dead_letter_queue("asya-a-b-dlq")]),
    ],
)
def test_an_actor_whose_queue_is_a_dead_letter_queue_is_refused(
    namespace: str, actor: str, owner: str, fetched: list[dict[str, Any]]
) -> None:
    # Its queue would be asya-<owner>-dlq: the one the owner's failed messages go to.
    with pytest.raises(SpecError) as refused:
        transports.SQS().refuse(
            plan({"actor": actor}, namespace=namespace, dead_letter_queues=fetched)
        )
    assert str(refused.value).startswith(
        f"invalid actor spec: actor: the queue asya-{namespace}-{actor} is the dead-letter "
        f"queue of namespace {owner}"
    )
    assert refused.value.path == "actor"
    # RabbitMQ has no namespace dead-letter queue to collide with.
    rabbitmq = plan({"actor": actor}, namespace=namespace, settings={"transport": "rabbitmq"})
    transports.RabbitMQ().refuse(rabbitmq)
    assert renderers.render_all(rabbitmq)


def test_state_proxy_adds_connectors_mounts_and_the_mounts_env() -> None:
    spec = pod(
        spec={
            "stateProxy": [
                {
                    "name": "cache",
                    "mount": {"path": "/state/cache"},
                    "writeMode": "passthrough",
                    "connector": {
                        "image": "redis-proxy:1",
                        "env": [{"name": "REDIS_URL", "value": "redis://r"}],
                    },
                }
            ]
        }
    )
    runtime, _sidecar, connector = spec["containers"]
    assert env(runtime)["ASYA_STATE_PROXY_MOUNTS"] == "cache:/state/cache:write=passthrough"
    assert {"name": "state-sockets", "mountPath": "/var/run/asya/state"} in runtime["volumeMounts"]
    assert connector["name"] == "asya-state-proxy-cache"
    assert connector["env"] == [
        {"name": "CONNECTOR_SOCKET", "value": "/var/run/asya/state/cache.sock"},
        {"name": "REDIS_URL", "value": "redis://r"},
    ]
    assert {"name": "state-sockets", "emptyDir": {}} in spec["volumes"]


def test_secret_refs_become_secret_key_refs() -> None:
    runtime = pod(
        spec={
            "secretRefs": [
                {
                    "secretName": "openai-creds",
                    "keys": [{"key": "api-key", "envVar": "OPENAI_API_KEY"}],
                }
            ]
        }
    )["containers"][0]
    assert env(runtime)["OPENAI_API_KEY"] == {
        "secretKeyRef": {"name": "openai-creds", "key": "api-key"}
    }


def test_resiliency_is_passed_to_the_sidecar_as_go_style_json() -> None:
    sidecar = pod(
        spec={
            "resiliency": {
                "actorTimeout": "30s",
                "policies": {"default": {"maxAttempts": 3, "backoff": "exponential"}},
                "rules": [{"errors": ["A<B"], "policy": "default"}],
            }
        }
    )["containers"][1]
    values = env(sidecar)
    assert (
        values["ASYA_RESILIENCY_POLICIES"]
        == '{"default":{"backoff":"exponential","maxAttempts":3}}'
    )
    assert values["ASYA_RESILIENCY_RULES"] == '[{"errors":["A\\u003cB"],"policy":"default"}]'
    assert values["ASYA_RESILIENCY_ACTOR_TIMEOUT"] == "30s"


@pytest.mark.parametrize("actor", sorted(meta.SYSTEM_ACTORS))
def test_system_actors_disable_validation_and_end_the_route(actor: str) -> None:
    runtime, sidecar = pod(spec={"actor": actor})["containers"][:2]
    assert env(runtime)["ASYA_ENABLE_VALIDATION"] == "false"
    assert env(sidecar)["ASYA_IS_END_ACTOR"] == "true"


def test_ordinary_actors_keep_validation() -> None:
    runtime, sidecar = pod()["containers"][:2]
    assert "ASYA_ENABLE_VALIDATION" not in env(runtime)
    assert "ASYA_IS_END_ACTOR" not in env(sidecar)


def test_the_actors_sidecar_image_and_resources_are_honoured() -> None:
    sidecar = pod(
        spec={
            "sidecar": {
                "image": {"tag": "v9", "pullPolicy": "Always"},
                "resources": {"limits": {"memory": "64Mi"}},
            }
        }
    )["containers"][1]
    assert sidecar["image"] == "ghcr.io/deliveryhero/asya-sidecar:v9"
    assert sidecar["imagePullPolicy"] == "Always"
    assert sidecar["resources"] == {"limits": {"memory": "64Mi"}}


def test_sidecar_env_may_set_the_log_level() -> None:
    sidecar = pod(
        spec={
            "sidecar": {
                "env": [
                    {"name": "ASYA_LOG_LEVEL", "value": "debug"},
                    {"name": "EXTRA", "value": "1"},
                ]
            }
        }
    )["containers"][1]
    assert env(sidecar)["ASYA_LOG_LEVEL"] == "debug"
    assert [e["name"] for e in sidecar["env"]].count("ASYA_LOG_LEVEL") == 1


def test_tracing_from_the_actor_wins_over_the_input() -> None:
    settings = {"sidecar": {"tracing": {"endpoint": "http://otel:4317", "protocol": "grpc"}}}
    values = env(pod(settings=settings)["containers"][1])
    assert values["OTEL_EXPORTER_OTLP_ENDPOINT"] == "http://otel:4317"
    values = env(
        pod(
            spec={"tracing": {"endpoint": "http://mine:4318", "protocol": "http"}},
            settings=settings,
        )["containers"][1]
    )
    assert (values["OTEL_EXPORTER_OTLP_ENDPOINT"], values["OTEL_EXPORTER_OTLP_PROTOCOL"]) == (
        "http://mine:4318",
        "http",
    )


def test_user_sidecars_init_containers_and_volumes_are_added() -> None:
    spec = pod(
        spec={
            "sidecars": [{"name": "log-shipper", "image": "fluent:1"}],
            "initContainers": [{"name": "fetch-model", "image": "fetch:1"}],
            "volumes": [{"name": "models", "emptyDir": {}}],
            "volumeMounts": [
                {
                    "name": "models",
                    "mountPath": "/models",
                    "readOnly": True,
                    "recursiveReadOnly": "Enabled",
                    "subPath": "",
                }
            ],
        }
    )
    assert [c["name"] for c in spec["containers"]] == [
        "asya-runtime",
        "asya-sidecar",
        "log-shipper",
    ]
    assert spec["initContainers"] == [{"name": "fetch-model", "image": "fetch:1"}]
    assert spec["volumes"][-1] == {"name": "models", "emptyDir": {}}
    # Every field set is kept (recursiveReadOnly was dropped); an empty one is not written.
    assert spec["containers"][0]["volumeMounts"][-1] == {
        "name": "models",
        "mountPath": "/models",
        "readOnly": True,
        "recursiveReadOnly": "Enabled",
    }


def test_user_labels_go_on_every_object_but_crossplane_labels_do_not() -> None:
    labels = {
        "team": "ml",
        "asya.sh/flow": "images",
        "crossplane.io/claim-name": "echo",
        "app.kubernetes.io/version": "1",
    }
    rendered = renderers.render_all(plan(labels=labels, settings=IRSA, observed=stage("queue-url")))
    for name in ("triggerauthentication", "scaledobject", "deployment"):
        got = manifest(rendered[name])["metadata"]["labels"]
        assert (got["team"], got["asya.sh/flow"]) == ("ml", "images"), name
        assert {"crossplane.io/claim-name", "app.kubernetes.io/version"}.isdisjoint(got), name
    template = manifest(rendered["deployment"])["spec"]["template"]["metadata"]["labels"]
    assert template["team"] == "ml"
    assert template["asya.sh/inject"] == "true"
    assert template["asya.sh/actor"] == "echo"


@pytest.mark.parametrize("namespaced", [False, True], ids=["v1 form", "v2 form"])
def test_every_composed_object_carries_user_labels_and_the_platform_wins(
    namespaced: bool,
) -> None:
    # Wrappers and managed resources too; a user label never replaces a platform one.
    labels = {"team": "ml", "asya.sh/actor": "other", "asya.sh/inject": "false"}
    rendered = renderers.render_all(
        plan(
            labels=labels,
            namespaced=namespaced,
            settings=IRSA,
            observed=stage("queue-url"),
        )
    )
    assert set(rendered) == {
        "sqs-queue",
        "serviceaccount",
        "triggerauthentication",
        "scaledobject",
        "deployment",
    }
    for name, body in rendered.items():
        shared = name == "serviceaccount" and not namespaced  # no one actor's labels
        for where, got in (
            ("composed", body["metadata"]["labels"]),
            *((("object", manifest(body)["metadata"]["labels"]),) if not shared else ()),
        ):
            assert got["team"] == "ml", (name, where)
            assert got["asya.sh/actor"] == "echo", (name, where)
    deployment = manifest(rendered["deployment"])
    assert deployment["metadata"]["labels"]["asya.sh/inject"] == "true"
    assert deployment["spec"]["template"]["metadata"]["labels"]["asya.sh/inject"] == "true"


def test_the_runtime_container_is_wired_to_the_sidecar() -> None:
    runtime = pod(
        spec={
            "pythonExecutable": "/opt/conda/bin/python",
            "env": [{"name": "MODEL_PATH", "value": "/m"}],
        }
    )["containers"][0]
    assert runtime["command"] == ["/opt/conda/bin/python", "/opt/asya/asya_runtime.py"]
    assert [e["name"] for e in runtime["env"]] == ["ASYA_SOCKET_DIR", "ASYA_HANDLER", "MODEL_PATH"]
    assert env(runtime)["ASYA_HANDLER"] == "echo.handle"


def test_go_json_escapes_like_go() -> None:
    assert containers.go_json({"b": "<&>", "a": 1}) == '{"a":1,"b":"\\u003c\\u0026\\u003e"}'


def test_the_shared_service_account_of_the_v1_form_is_never_deleted_by_one_actor() -> None:
    rendered = renderers.render_all(plan(settings=IRSA, labels={"team": "a"}))
    wrapper = rendered["serviceaccount"]
    assert wrapper["kind"] == "Object"
    assert "Delete" not in wrapper["spec"]["managementPolicies"]
    assert set(wrapper["spec"]["managementPolicies"]) == {
        "Observe",
        "Create",
        "Update",
        "LateInitialize",
    }
    account = manifest(wrapper)
    assert account["metadata"]["name"] == "asya-actors"
    # The same manifest from every actor of the namespace: nothing actor-specific.
    other = manifest(
        renderers.render_all(plan({"actor": "other"}, settings=IRSA, labels={"team": "b"}))[
            "serviceaccount"
        ]
    )
    assert account == other
    pod_spec = manifest(rendered["deployment"])["spec"]["template"]["spec"]
    assert pod_spec["serviceAccountName"] == "asya-actors"


def test_each_v2_actor_composes_its_own_service_account() -> None:
    rendered = renderers.render_all(plan(namespaced=True, settings=IRSA))
    account = rendered["serviceaccount"]
    assert account["kind"] == "ServiceAccount"
    assert account["metadata"]["name"] == "asya-echo"
    pod_spec = rendered["deployment"]["spec"]["template"]["spec"]
    assert pod_spec["serviceAccountName"] == "asya-echo"


@pytest.mark.parametrize(
    ("keda_aws", "irsa", "pod_identity"),
    [
        ({"identityOwner": "workload"}, True, {"provider": "aws", "identityOwner": "workload"}),
        (
            {"roleArn": "arn:aws:iam::123456789012:role/keda-sqs"},
            False,
            {"provider": "aws", "roleArn": "arn:aws:iam::123456789012:role/keda-sqs"},
        ),
    ],
    ids=["the workload's role", "a role KEDA assumes"],
)
def test_kedas_aws_identity_is_rendered_as_the_input_says(
    keda_aws: dict[str, str], irsa: bool, pod_identity: dict[str, str]
) -> None:
    settings = {"keda": {"aws": keda_aws}, "irsa": {"enabled": irsa}, "aws": IRSA["aws"]}
    identity = manifest(renderers.render_all(plan(settings=settings))["triggerauthentication"])
    assert identity["spec"] == {"podIdentity": pod_identity}


@pytest.mark.parametrize(
    ("keda_aws", "irsa", "error"),
    [
        (
            {"identityOwner": "keda", "roleArn": "arn:aws:iam::123456789012:role/k"},
            False,
            "set keda.aws.identityOwner or keda.aws.roleArn, not both",
        ),
        (
            {"identityOwner": "workload"},
            False,
            "keda.aws.identityOwner: workload needs irsa.enabled",
        ),
        ({"roleArn": "keda-role"}, False, "keda.aws.roleArn"),
    ],
    ids=["both", "workload without IRSA", "not an ARN"],
)
def test_a_keda_identity_that_cannot_work_is_refused(
    keda_aws: dict[str, str], irsa: bool, error: str
) -> None:
    with pytest.raises(InputError, match=re.escape(error)):
        fn_input.parse({"keda": {"aws": keda_aws}, "irsa": {"enabled": irsa}})


def test_keda_names_the_hpa_itself_while_its_name_fits_a_label() -> None:
    rendered = renderers.render_all(plan({"actor": "a" * 54}, settings={"transport": "rabbitmq"}))
    config = manifest(rendered["scaledobject"])["spec"]["advanced"]["horizontalPodAutoscalerConfig"]
    assert "name" not in config  # keda-hpa-<actor>, 63 characters
    assert keda_names.autoscaler_name("a" * 54) == "keda-hpa-" + "a" * 54


def test_a_long_actor_names_its_hpa_within_what_keda_accepts() -> None:
    # KEDA 2.20 and later refuse a ScaledObject whose HPA name is past 63 characters.
    names = {}
    for actor in ("a" * 55, "a" * 62 + "b", "a" * 62 + "c", "a" * 45 + "-" + "b" * 17):
        rendered = renderers.render_all(plan({"actor": actor}, settings={"transport": "rabbitmq"}))
        spec = manifest(rendered["scaledobject"])["spec"]
        names[actor] = spec["advanced"]["horizontalPodAutoscalerConfig"]["name"]
        assert names[actor] == keda_names.autoscaler_name(actor)
        assert re.fullmatch(r"keda-hpa-[a-z0-9]([-a-z0-9]*[a-z0-9])?", names[actor])
        assert len(names[actor]) <= 63
    assert len(set(names.values())) == len(names)


@pytest.mark.parametrize("state_proxy", [False, True])
def test_the_platforms_volumes_are_those_the_rules_know(state_proxy: bool) -> None:
    # The validation stage checks mounts, devices and env files against pod.platform_volumes.
    proxies = [{"name": "cache", "mount": {"path": "/cache"}, "connector": {"image": "c:1"}}]
    rendered = renderers.render_all(plan({"stateProxy": proxies} if state_proxy else {}))
    volumes = manifest(rendered["deployment"])["spec"]["template"]["spec"]["volumes"]
    sources = {v["name"]: next(k for k in v if k != "name") for v in volumes}
    assert sources == pod_model.platform_volumes(state_proxy)


DIGEST = "sha256:" + "a" * 64


@pytest.mark.parametrize(
    ("default", "override", "image"),
    [
        (f"ghcr.io/x/sidecar@{DIGEST}", {"tag": "v2"}, "ghcr.io/x/sidecar:v2"),
        (f"ghcr.io/x/sidecar:1.2@{DIGEST}", {"repository": "my/sidecar"}, "my/sidecar:1.2"),
        (f"ghcr.io/x/sidecar@{DIGEST}", {"pullPolicy": "Always"}, f"ghcr.io/x/sidecar@{DIGEST}"),
        ("registry:5000/sidecar", {"tag": "v3"}, "registry:5000/sidecar:v3"),
    ],
)
def test_an_actors_sidecar_image_overrides_a_pinned_one(
    default: str, override: dict[str, str], image: str
) -> None:
    # A digest pins the Input's image; a tag or repository of the actor's replaces it.
    actor = plan({"sidecar": {"image": override}}, settings={"sidecar": {"image": default}})
    assert containers.sidecar_image(actor)[0] == image


def test_an_actor_named_after_dead_letters_is_no_dead_letter_queue_of_its_own() -> None:
    # orders-dlq in team names the queue asya-team-orders-dlq: only a fetched dead-letter
    # queue of that name (namespace team-orders's) makes it one.
    orders_dlq = plan({"actor": "orders-dlq"}, dead_letter_queues=[])
    transports.SQS().refuse(orders_dlq)
    assert renderers.render_all(orders_dlq)
