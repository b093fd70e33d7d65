"""Values the API server or KEDA's CRD would refuse are refused first, naming the field and its source.

The typed models hold what the schemas say (int32 counts, string trigger metadata and
label values, one of value/valueFrom); the last test holds them to KEDA's real CRD.
"""

from __future__ import annotations

import copy
import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from function import runner as fn
from function.errors import FlavorError
from function.models import names
from function.models import scaling as scaling_model
from function.validate import api_server_checks, kube_schemas
from tests import support
from tests.unit.test_flavors import flavor, resolve

# KEDA's CRD from ../shared/schemas, else from its Go module (make e2e-tools): both v2.20.2.
KEDA_CRD = next(
    (
        path
        for path in (
            support.SHARED / "schemas" / "keda" / "keda.sh_scaledobjects.yaml",
            support.ROOT / ".e2e" / "keda-crds" / "keda.sh_scaledobjects.yaml",
        )
        if path.exists()
    ),
    support.ROOT / ".e2e" / "keda-crds" / "keda.sh_scaledobjects.yaml",
)


def refusal(flavor_data: dict[str, Any]) -> str:
    rsp = fn.FunctionRunner().answer(support.flavored_request(flavor_data)).message()
    [message] = support.fatal_messages(rsp)
    assert dict(rsp.desired.resources) == {}
    return message


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (
            {"nodeSelector": {"cloud.google.com/gke-spot": True}},
            "nodeSelector.cloud.google.com/gke-spot: Input should be a valid string",
        ),
        (
            {"tolerations": [{"key": "spot", "operator": "Equal", "value": True}]},
            "tolerations[0].value: Input should be a valid string",
        ),
        (
            {
                "scaling": {
                    "additionalTriggers": [{"type": "cron", "metadata": {"desiredReplicas": 3}}]
                }
            },
            "scaling.additionalTriggers[0].metadata.desiredReplicas: Input should be a valid string",
        ),
        (
            {"scaling": {"additionalTriggers": [{"type": "cron", "metadata": {}, "bogus": 1}]}},
            "scaling.additionalTriggers[0].bogus: unknown field",
        ),
        (
            {"scaling": {"maxReplicaCount": 2**31}},
            "scaling.maxReplicaCount: Input should be less than or equal to 2147483647",
        ),
        (
            {"replicas": 10**30},
            "replicas: Input should be less than or equal to 2147483647",
        ),
        (
            {"scaling": {"pollingInterval": 2**40}},
            "scaling.pollingInterval: Input should be less than or equal to 2147483647",
        ),
        (
            {"env": [{"name": "A", "value": "1", "valueFrom": {"fieldRef": {"fieldPath": "x"}}}]},
            "env[A]: set value or valueFrom, not both",
        ),
        (
            {"resources": {"l": {"cpu": "1"}}},
            "resources: Additional properties are not allowed ('l' was unexpected) "
            "(as Kubernetes' ResourceRequirements)",
        ),
        (
            {"env": [{"name": "A", "valueFrom": {"bogusRef": {}}}]},
            "env[A]: valueFrom: Additional properties are not allowed ('bogusRef' was unexpected) "
            "(as Kubernetes' EnvVar)",
        ),
        (
            {"initContainers": [{"name": "init", "image": "i:1", "bogus": 1}]},
            "initContainers[init]: Additional properties are not allowed ('bogus' was unexpected) "
            "(as Kubernetes' Container)",
        ),
        (
            {"volumes": [{"name": "v", "secret": {"secretName": 5}}]},
            'volumes[v]: secret.secretName: the value is not of types "null", "string" (as Kubernetes\' Volume)',
        ),
        (
            {
                "initContainers": [
                    {"name": "init", "image": "i:1", "ports": [{"containerPort": 2**40}]}
                ]
            },
            "initContainers[init]: ports[0].containerPort: the value is greater than the "
            "maximum of 2147483647 (as Kubernetes' Container)",
        ),
    ],
    ids=[
        "a YAML true as a label value",
        "a YAML true as a toleration value",
        "a number in trigger metadata",
        "an unknown trigger field",
        "maxReplicaCount past int32",
        "replicas of 10**30 (printed as 1000000000000000019884624838656 before)",
        "pollingInterval past int32",
        "value and valueFrom both",
        "an unknown key under resources",
        "an env source that is none",
        "an unknown init container field",
        "a secret name that is a number",
        "an init container's port past int32",
    ],
)
def test_a_value_the_schema_refuses_is_refused_naming_the_field_and_flavor(
    data: dict[str, Any], said: str
) -> None:
    message = refusal(data)
    assert said in message
    assert message.endswith('(from flavor "shape")')


KEDA_REFUSES = [
    pytest.param(
        {"scaling": {"additionalTriggers": [{"type": "cron", "name": "queue", "metadata": {}}]}},
        "scaling.additionalTriggers[0].name: 'queue' is the actor's own trigger on its queue",
        id="a trigger named as the actor's own",
    ),
    pytest.param(
        {
            "scaling": {
                "additionalTriggers": [
                    {"type": "cron", "name": "a", "metadata": {}},
                    {"type": "cron", "name": "b", "metadata": {}},
                    {"type": "cpu", "name": "a", "metadata": {"value": "50"}},
                ]
            }
        },
        "scaling.additionalTriggers[2].name: another trigger has this name: KEDA needs each "
        "name unique",
        id="two triggers of one name",
    ),
    pytest.param(
        {
            "scaling": {
                "additionalTriggers": [
                    {"type": "memory", "useCachedMetrics": True, "metadata": {"value": "50"}}
                ]
            }
        },
        "scaling.additionalTriggers[0].useCachedMetrics: KEDA caches no metrics of the "
        "memory scaler",
        id="cached metrics of a memory trigger",
    ),
    pytest.param(
        {"scaling": {"advanced": {"formula": "queue", "target": "5", "metricType": "Utilization"}}},
        "scaling.advanced.metricType: Input should be 'AverageValue' or 'Value'",
        id="a formula's metric type KEDA's CRD does not list",
    ),
    pytest.param(
        {"scaling": {"advanced": {"formula": "queue", "target": "five"}}},
        "scaling.advanced.target: must be a number above zero, as text",
        id="a target that is no number",
    ),
    pytest.param(
        {"scaling": {"advanced": {"formula": "queue", "target": "0x1p1024"}}},
        "scaling.advanced.target: must be a number above zero",
        id="a hexadecimal target past float64 (an OverflowError escaped before)",
    ),
    pytest.param(
        {"scaling": {"advanced": {"formula": "queue", "target": "0xp3"}}},
        "scaling.advanced.target: must be a number above zero",
        id="a hexadecimal target without digits (a ValueError escaped before)",
    ),
    pytest.param(
        {"scaling": {"advanced": {"formula": "queue", "target": "0x1p3 "}}},
        "scaling.advanced.target: must be a number above zero",
        id="a hexadecimal target with a space, which Go refuses",
    ),
    pytest.param(
        {"scaling": {"advanced": {"formula": "queue", "target": "0"}}},
        "scaling.advanced.target: must be a number above zero",
        id="a target of zero",
    ),
]


@pytest.mark.parametrize(("data", "said"), KEDA_REFUSES)
def test_a_scaled_object_keda_would_refuse_is_refused_naming_the_field_and_flavor(
    data: dict[str, Any], said: str
) -> None:
    message = refusal(data)
    assert said in message
    assert message.endswith('(from flavor "shape")')


@pytest.mark.parametrize(
    "scaling",
    [
        {
            "additionalTriggers": [
                {
                    "type": "prometheus",
                    "name": "p",
                    "useCachedMetrics": True,
                    "metadata": {"query": "q"},
                }
            ]
        },
        {
            "additionalTriggers": [
                {"type": "cron", "metadata": {}},
                {"type": "cron", "metadata": {}},
            ]
        },
        {"advanced": {"formula": "queue * 2", "target": "0x1p3"}},
        {
            "additionalTriggers": [
                {"type": "prometheus", "name": "p95_latency", "metadata": {"query": "q"}}
            ],
            "advanced": {
                "formula": "let q = queue; p95_latency > 1e3 && q > 2 ? max(q, 2.5e1) : "
                'float("1") + ceil(q / 2) + [1, 2][0] + {"a": q}.a',
                "target": "5",
            },
        },
        {"advanced": {"formula": "queue * 2", "target": "Inf"}},
        {
            "advanced": {
                "formula": "/* depth of the queue */ queue /* per replica */ / 2 + 0b101 + 0o17 "
                '+ len(b"abc") + 0X1F // per replica\n + 1',
                "target": "5",
            }
        },
        {"advanced": {"formula": "float(queue) // per replica", "target": "5"}},
        {
            "enabled": False,
            "additionalTriggers": [{"type": "cron", "name": "queue", "metadata": {}}],
        },
        {
            "advanced": {
                "formula": "queue * 2",
                "target": "2.5",
                "activationTarget": "1",
                "metricType": "Value",
            }
        },
    ],
    ids=[
        "cached metrics of another scaler",
        "two unnamed triggers",
        "a hexadecimal target, as Go reads it",
        "a formula of named triggers, a binding, builtins, numbers, strings and members",
        "an infinite target, which KEDA takes",
        "a formula with comments, binary, octal and bytes literals",
        "a formula KEDA does not wrap, ending in a line comment",
        "a trigger no ScaledObject carries (scaling off)",
        "a formula with its target",
    ],
)
def test_what_keda_takes_renders(scaling: dict[str, Any]) -> None:
    rsp = fn.FunctionRunner().answer(support.flavored_request({"scaling": scaling})).message()
    assert support.fatal_messages(rsp) == []


CPU_TRIGGER = {"type": "cpu", "metricType": "Utilization", "metadata": {"value": "60"}}


def scaling_warnings(data: dict[str, Any]) -> list[str]:
    rsp = fn.FunctionRunner().answer(support.flavored_request(data)).message()
    assert support.fatal_messages(rsp) == []
    return [r.message for r in rsp.results if r.reason == "ScalingWarning"]


def test_a_cpu_trigger_warns_of_each_container_without_a_cpu_request() -> None:
    said = scaling_warnings({"scaling": {"additionalTriggers": [CPU_TRIGGER]}})
    assert said == [
        "scaling.additionalTriggers[0]: KEDA refuses a cpu trigger while container "
        f"{container} has no cpu request or limit (unless a LimitRange of the namespace "
        f"gives one): set {field}.requests.cpu"
        for container, field in (
            ("asya-runtime", "resources"),
            ("asya-sidecar", "sidecar.resources"),
        )
    ]


@pytest.mark.parametrize(
    "data",
    [
        {
            "resources": {"requests": {"cpu": "1"}},
            "sidecar": {"resources": {"limits": {"cpu": "100m"}}},
            "scaling": {"additionalTriggers": [CPU_TRIGGER]},
        },
        {
            "resources": {"limits": {"memory": "1Gi"}},
            "scaling": {
                "additionalTriggers": [
                    {"type": "memory", "metadata": {"value": "60", "containerName": "asya-runtime"}}
                ]
            },
        },
        {"scaling": {"enabled": False, "additionalTriggers": [CPU_TRIGGER]}},
    ],
    ids=["every container asks for cpu", "the one container named asks for memory", "scaling off"],
)
def test_a_resource_trigger_keda_takes_warns_of_nothing(data: dict[str, Any]) -> None:
    assert scaling_warnings(data) == []


@pytest.mark.parametrize("formula", [{}, {"formula": ""}], ids=["no formula", "an empty one"])
def test_a_target_without_a_formula_is_left_out_with_a_warning(formula: dict[str, str]) -> None:
    advanced = {"target": "x", "metricType": "Value", **formula}
    said = scaling_warnings({"scaling": {"advanced": advanced}})
    assert said == [
        "scaling.advanced: target and metricType take effect only with a formula: left out of "
        "the ScaledObject"
    ]


LAYERED = [
    (
        {"resources": {"limits": {"cpu": "1"}}},
        [("aaa", {"resources": {"l": {"cpu": "1"}}})],
        "invalid flavor data: resources: Additional properties are not allowed ('l' was "
        'unexpected) (as Kubernetes\' ResourceRequirements) (from flavor "aaa")',
    ),
    (
        {},
        [("aaa", {"resources": {"limits": {"cpu": "1"}}}), ("bbb", {"resources": {"l": {}}})],
        "invalid flavor data: resources: Additional properties are not allowed ('l' was "
        'unexpected) (as Kubernetes\' ResourceRequirements) (from flavor "bbb")',
    ),
    (
        {"sidecar": {"resources": {"limits": {"cpu": "1"}}}},
        [("aaa", {"sidecar": {"resources": {"requests": {"cpu": {"m": 1}}}}})],
        "invalid flavor data: sidecar.resources: requests.cpu: a map is not a quantity: a number "
        'with an optional suffix, such as 500m, 2Gi or 1e3 (from flavor "aaa")',
    ),
    (
        {"resources": {"l": {}}},
        [("aaa", {"resources": {"limits": {"cpu": "1"}}})],
        "invalid actor spec: resources: Additional properties are not allowed ('l' was "
        "unexpected) (as Kubernetes' ResourceRequirements) (from the actor's spec)",
    ),
]


@pytest.mark.parametrize(
    ("actor", "flavors", "said"),
    LAYERED,
    ids=[
        "a flavor's key beside the actor's",
        "the second flavor's key",
        "a flavor's type",
        "the actor's",
    ],
)
def test_a_part_merged_from_several_layers_blames_the_one_that_set_the_wrong_value(
    actor: dict[str, Any], flavors: list[tuple[str, dict[str, Any]]], said: str
) -> None:
    with pytest.raises(FlavorError) as refused:
        resolve(actor, *(flavor(name, data) for name, data in flavors))
    assert str(refused.value) == said


def test_a_refusal_never_repeats_the_value_it_refuses() -> None:
    # Refusals become events: a value put in the wrong place may be a credential.
    message = refusal({"volumes": [{"name": "v", "secret": {"secretName": {"token": "s3cr3t"}}}]})
    assert "s3cr3t" not in message
    assert message.startswith(
        "invalid flavor data: volumes[v]: secret.secretName: the value is not"
    )


@pytest.mark.parametrize("image", ["", " sidecar:1", "sidecar:1\n"])
def test_an_empty_or_padded_sidecar_image_in_the_input_is_refused(image: str) -> None:
    # The API server takes a padded image in a Deployment and refuses every pod of it.
    req = support.flavored_request({}, input=support.struct({"sidecar": {"image": image}}))
    rsp = fn.FunctionRunner().answer(req).message()
    [message] = support.fatal_messages(rsp)
    assert message.startswith("invalid function input: sidecar.image: ")


@pytest.mark.parametrize(
    ("image", "where"),
    [
        ({"tag": "sha256:" + "a" * 64}, "sidecar.image.tag"),
        ({"tag": "-v1"}, "sidecar.image.tag"),
        ({"tag": "1 "}, "sidecar.image.tag"),
        ({"repository": "ghcr.io/x/sidecar:v2"}, "sidecar.image.repository"),
        ({"repository": "ghcr.io/x/sidecar@sha256:" + "a" * 64}, "sidecar.image.repository"),
    ],
)
def test_a_sidecar_tag_or_repository_that_is_not_one_is_refused(
    image: dict[str, str], where: str
) -> None:
    # Joined as <repository>:<tag>, they would make a reference no registry has.
    xr = copy.deepcopy(support.MINIMAL_XR)
    xr["spec"] |= {"sidecar": {"image": image}}
    rsp = fn.FunctionRunner().answer(support.request(xr, input=support.struct({}))).message()
    [message] = support.fatal_messages(rsp)
    assert f"{where}: " in message


@pytest.mark.parametrize(
    "image",
    [
        {"repository": "registry:5000/x/sidecar", "tag": "v2_1.0"},
        {"tag": "1.4.2@sha256:" + "a" * 64},  # as digest-pinning tools write a tag
        {"tag": "1.0.0-rc.1"},
    ],
)
def test_a_sidecar_repository_and_tag_registries_take_are_taken(image: dict[str, str]) -> None:
    xr = copy.deepcopy(support.MINIMAL_XR)
    xr["spec"] |= {"sidecar": {"image": image}}
    rsp = fn.FunctionRunner().answer(support.request(xr, input=support.struct({}))).message()
    assert support.fatal_messages(rsp) == []


@pytest.mark.parametrize(
    ("spec", "where"),
    [
        ({"image": " echo:1"}, "image"),
        ({"image": "echo:1 "}, "image"),
        ({"sidecar": {"image": {"repository": "r ", "tag": "1"}}}, "sidecar.image.repository"),
        (
            {
                "stateProxy": [
                    {"name": "c", "mount": {"path": "/c"}, "connector": {"image": "c:1\t"}}
                ]
            },
            "stateProxy[c].connector.image",
        ),
        ({"sidecars": [{"name": "s", "image": " s:1"}]}, "sidecars[s].image"),
    ],
)
def test_a_padded_image_is_refused(spec: dict[str, Any], where: str) -> None:
    xr = copy.deepcopy(support.MINIMAL_XR)
    xr["spec"] |= spec
    rsp = fn.FunctionRunner().answer(support.request(xr, input=support.struct({}))).message()
    [message] = support.fatal_messages(rsp)
    assert f"{where}: " in message
    assert "leading or trailing whitespace" in message


@pytest.mark.skipif(
    not KEDA_CRD.exists(),
    reason="KEDA's CRD is read from ../shared/schemas or, once make e2e-tools has run, its Go module",
)
def test_the_models_say_what_kedas_crd_says() -> None:
    crd = yaml.safe_load(KEDA_CRD.read_text())
    [version] = [v for v in crd["spec"]["versions"] if v["name"] == "v1alpha1"]
    spec = version["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
    fields = scaling_model.Scaling.model_fields
    for name in ("minReplicaCount", "maxReplicaCount", "pollingInterval", "cooldownPeriod"):
        schema = spec[name]
        assert schema["format"] == "int32"
        bounds = {type(m).__name__: m for m in fields[_snake(name)].metadata}
        assert bounds["Ge"].ge == schema["minimum"]
        assert bounds["Le"].le == scaling_model.INT32_MAX == 2**31 - 1
    trigger = spec["triggers"]["items"]
    model = scaling_model.Trigger.model_fields
    assert {_camel(n) for n in model} == set(trigger["properties"])
    assert trigger["properties"]["metadata"]["additionalProperties"] == {"type": "string"}
    assert set(trigger["required"]) == {_camel(n) for n, f in model.items() if f.is_required()}


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


def test_every_part_is_checked_as_its_kubernetes_type_and_named_so() -> None:
    checked = kube_schemas.validator()
    for path, kind in kube_schemas.TYPES:
        read_as = api_server_checks.DERIVED.get(kind, kind)
        assert f"{kube_schemas.CORE}{read_as}" in kube_schemas.definitions(), kind
        data: Any = {"bogus": True}
        for step in reversed(path):
            data = [data] if step == "*" else {step: data}
        errors = list(checked.iter_errors(data))
        assert any("'bogus' was unexpected" in error.message for error in errors), path
        for error in errors:
            where = list(error.instance_path)
            assert kube_schemas._part(where) == (tuple(where), (), kind)


def test_the_definitions_read_are_the_packaged_files_own() -> None:
    package, name = kube_schemas.SCHEMAS
    spec = importlib.util.find_spec(package)
    assert spec is not None
    assert spec.submodule_search_locations
    whole = json.loads((Path(spec.submodule_search_locations[0]) / name).read_text())["$defs"]
    read = kube_schemas.definitions()
    assert len(read) > 80
    for key, definition in read.items():
        assert definition == _without_descriptions_bounded(whole[key]), key


def _without_descriptions_bounded(schema: Any) -> Any:
    """What kube_schemas keeps of a definition, stated independently of its code."""
    if isinstance(schema, list):
        return [_without_descriptions_bounded(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    kept = {k: _without_descriptions_bounded(v) for k, v in schema.items() if k != "description"}
    bits = {"int32": 32, "int64": 64}.get(schema.get("format", ""))
    if bits:
        kept |= {"minimum": -(2 ** (bits - 1)), "maximum": 2 ** (bits - 1) - 1}
    return kept


def test_an_image_padded_as_go_reads_padding_is_refused_and_no_other() -> None:
    # Go's strings.TrimSpace trims NBSP and NEL, not the ASCII separators Python counts.
    assert not names.is_image("echo:1\u00a0")
    assert not names.is_image("\u0085echo:1")
    assert names.is_image("echo:1\x1c")
