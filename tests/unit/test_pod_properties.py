"""Random specs and flavor combinations: every Deployment rendered passes the pod rules and the schemas."""

from __future__ import annotations

from typing import Any

from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from google.protobuf import json_format
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from function import respond
from function import runner as fn
from function.codec import structs
from function.models.observed import is_wrapped
from function.models.spec import Spec, as_data
from tests import podrules, schemas, support


def pool(valid: list[str], invalid: list[str]) -> st.SearchStrategy[str]:
    """Small pools, so names and paths collide with each other and with the platform's;
    valid ones drawn most often, so about half the specs compose."""
    return st.sampled_from(valid * 6 + invalid)


ENV_NAMES = pool(
    ["MODEL", "API_KEY", "LOG"], ["ASYA_HANDLER", "ASYA_QUEUE_URL", "CONNECTOR_SOCKET", "A=B"]
)
NAMES = pool(["data", "cache", "models"], ["tmp", "socket-dir", "Bad_Name", "x" * 50])
PATHS = pool(["/data", "/models", "/d", "/state/a"], ["/tmp", "/var/run/asya", "/d/"])
BY_NAME = {"unique_by": lambda item: item["name"]}
ENV = st.lists(
    st.fixed_dictionaries({"name": ENV_NAMES, "value": st.just("v")}), max_size=3, **BY_NAME
)
MOUNTS = st.lists(
    st.fixed_dictionaries(
        {"name": NAMES},
        optional={"mountPath": PATHS, "subPath": pool(["a", "a/b", "..data"], ["../a", "/a"])},
    ),
    max_size=2,
)
TOLERATIONS = st.lists(
    st.sampled_from(
        [
            {"key": "dedicated", "operator": "Equal", "value": "ml", "effect": "NoSchedule"},
            {"key": "example.com/gpu", "operator": "Exists"},
            {"operator": "Exists"},
            {"key": "a", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 30},
        ]
        * 3
        + [
            {"key": "a", "operator": "Exists", "value": "x"},
            {"operator": "Equal", "value": "x"},
            {"key": "a", "operator": "Exists", "tolerationSeconds": 5},
            {"key": "bad key", "operator": "Exists"},
            {"key": "a", "value": "two words"},
        ]
    ),
    max_size=2,
)
NODE_SELECTOR = st.dictionaries(
    pool(["zone", "example.com/pool"], ["-zone", "bad key"]),
    pool(["a", "", "spot-1"], ["x" * 64, "two words"]),
    max_size=2,
)
# Free-form parts Kubernetes' types hold: mostly valid, now and then of another shape.
SOURCES = st.sampled_from(
    [{"secretKeyRef": {"name": "s", "key": "k"}}, {"fieldRef": {"fieldPath": "metadata.name"}}] * 3
    + [{"bogusRef": {}}, {"secretKeyRef": {"name": 5, "key": "k"}}]
)
RUNTIME_ENV = st.lists(
    st.one_of(
        st.fixed_dictionaries({"name": ENV_NAMES, "value": st.just("v")}),
        st.fixed_dictionaries({"name": ENV_NAMES, "valueFrom": SOURCES}),
    ),
    max_size=3,
    **BY_NAME,
)
RESOURCES = st.sampled_from(
    [{"limits": {"cpu": "1"}}, {"requests": {"memory": "1Gi", "cpu": 2}}] * 3
    + [{"limits": {"nvidia.com/gpu": 1}}, {"requests": {"cpu": "250m", "hugepages-2Mi": "2Mi"}}]
    + [{"l": {"cpu": "1"}}, {"limits": {"cpu": True}}, {"limits": "1"}]
    + [{"limits": {"memory": "1Gb"}}, {"requests": {"cpu": "-1"}}, {"limits": {"gpu": 1}}]
    + [{"requests": {"nvidia.com/gpu": 1}}, {"limits": {"nvidia.com/gpu": "1e400"}}]
    + [{"limits": {"hugepages-2Mi": "4Mi"}}, {"claims": [{"name": "c"}]}]
)
VOLUME_SOURCES = st.sampled_from(
    [{"emptyDir": {}}] * 4 + [{"hostPath": {"path": "/x"}}, {"hostPath": {"path": 5}}]
)
CONTAINER_EXTRAS = {
    "resources": RESOURCES,
    "ports": st.sampled_from(
        [[{"containerPort": 80}]] * 3 + [[{"containerPort": 2**40}], [{"containerPort": 70000}]]
    ),
    "imagePullPolicy": st.sampled_from(["IfNotPresent"] * 3 + ["always"]),
    "bogus": st.just(1),
}


def containers(names: st.SearchStrategy[str]) -> st.SearchStrategy[list[dict[str, Any]]]:
    return st.lists(
        st.fixed_dictionaries(
            {"name": names, "image": st.just("c:1")},
            optional={"env": ENV, "volumeMounts": MOUNTS, **CONTAINER_EXTRAS},
        ),
        max_size=2,
        **BY_NAME,
    )


# Sidecars and init containers collide on "helper" now and then.
SIDECARS = containers(pool(["proxy", "exporter"], ["helper", "Bad_Name"]))
INIT_CONTAINERS = containers(pool(["fetch", "migrate"], ["helper", "x" * 64]))
STATE = st.lists(
    st.fixed_dictionaries(
        {
            "name": NAMES,
            "mount": st.fixed_dictionaries({"path": PATHS}),
            "connector": st.fixed_dictionaries({"image": st.just("s:1")}, optional={"env": ENV}),
        }
    ),
    max_size=2,
    **BY_NAME,
)
PARTS = st.fixed_dictionaries(
    {},
    optional={
        "env": RUNTIME_ENV,
        "resources": RESOURCES,
        "volumes": st.lists(
            st.builds(lambda name, source: {"name": name, **source}, NAMES, VOLUME_SOURCES),
            max_size=2,
            **BY_NAME,
        ),
        "volumeMounts": MOUNTS,
        "sidecars": SIDECARS,
        "initContainers": INIT_CONTAINERS,
        "stateProxy": STATE,
        "sidecar": st.fixed_dictionaries({"env": ENV}),
        "scaling": st.fixed_dictionaries({"minReplicaCount": st.integers(0, 3)}),
        "tolerations": TOLERATIONS,
        "nodeSelector": NODE_SELECTOR,
    },
)


def deployment(rsp: fnv1.RunFunctionResponse) -> dict[str, Any]:
    body = json_format.MessageToDict(rsp.desired.resources["deployment"].resource)
    return body["spec"]["forProvider"]["manifest"] if is_wrapped(body) else body


def answer(
    actor: dict[str, Any], flavors: list[dict[str, Any]], namespaced: bool = False
) -> fnv1.RunFunctionResponse:
    """The function's answer for an actor over these flavors (v1 form, or v2 when namespaced)."""
    names = [f"flavor-{index}" for index in range(len(flavors))]
    metadata = {"name": "x", "namespace": "team"} if namespaced else support.MINIMAL_XR["metadata"]
    xr = support.MINIMAL_XR | {
        "metadata": metadata,
        "spec": support.MINIMAL_XR["spec"] | actor | {"flavors": names},
    }
    req = support.request(xr, input=support.struct({}))
    for name, data in zip(names, flavors, strict=True):
        req.required_resources[f"flavor-{name}"].items.add().resource.update(
            {"metadata": {"name": name}, "data": data}
        )
        # A namespaced XR also asks for a ConfigMap of each flavor: none here.
        req.required_resources[f"namespace-flavor-{name}"].SetInParent()
    return fn.FunctionRunner().answer(req).message()


def refused_or_accepted(
    actor: dict[str, Any], flavors: list[dict[str, Any]], namespaced: bool = False
) -> None:
    """The function refuses the spec in its own words, or renders a pod the API server accepts."""
    rsp = answer(actor, flavors, namespaced)
    refused = support.fatal_messages(rsp)
    if refused:
        [message] = refused
        assert message != respond.INTERNAL_ERROR
        assert message.startswith(("invalid ", "flavor merge conflict: ")), message
        return
    body = deployment(rsp)
    assert podrules.violations(body["spec"]["template"]["spec"]) == []
    assert schemas.errors(body) == []
    # The spec handed on is the data that was validated, not a dump of the model:
    # the two must be one and the same.
    handed = structs.plain(rsp.context)[respond.RESOLVED_SPEC_CONTEXT_KEY]
    assert as_data(Spec.model_validate(handed)) == handed


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(actor=PARTS, flavors=st.lists(PARTS, max_size=2), namespaced=st.booleans())
def test_every_rendered_deployment_passes_the_pod_rules(
    actor: dict[str, Any], flavors: list[dict[str, Any]], namespaced: bool
) -> None:
    refused_or_accepted(actor, flavors, namespaced)


# Resources alone, so that nothing else refuses the spec first: amounts the API server
# reads and ones it refuses, names a container may ask for and ones it may not.
AMOUNTS = st.sampled_from(["1", "500m", "2Gi", 2, 0.5, "4Mi", " 3 ", "1e400"] * 3 + ["-1", "1Gb"])
RESOURCE_NAMES = st.sampled_from(
    ["cpu", "memory", "ephemeral-storage", "nvidia.com/gpu", "hugepages-2Mi"] * 3
    + ["gpu", "example.kubernetes.io/x", "bad name"]
)
CONTAINER_RESOURCES = st.fixed_dictionaries(
    {},
    optional={
        "limits": st.dictionaries(RESOURCE_NAMES, AMOUNTS, max_size=3),
        "requests": st.dictionaries(RESOURCE_NAMES, AMOUNTS, max_size=3),
    },
)
RESOURCE_PARTS = st.fixed_dictionaries(
    {},
    optional={
        "resources": CONTAINER_RESOURCES,
        "sidecar": st.fixed_dictionaries({"resources": CONTAINER_RESOURCES}),
    },
)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(actor=RESOURCE_PARTS, flavors=st.lists(RESOURCE_PARTS, max_size=2))
def test_every_rendered_deployment_asks_for_resources_the_api_server_accepts(
    actor: dict[str, Any], flavors: list[dict[str, Any]]
) -> None:
    refused_or_accepted(actor, flavors)


# The rules beyond the schemas, each alone in an otherwise valid pod.
CHECKED_PARTS = st.fixed_dictionaries(
    {
        "volumes": st.just([{"name": "data", "emptyDir": {}}]),
        "volumeMounts": st.lists(
            st.fixed_dictionaries(
                {"name": st.just("data"), "mountPath": st.just("/data")},
                optional={"subPath": pool(["a", "a/b", "..data"], ["../a", "/a", "a/.."])},
            ),
            max_size=1,
        ),
    },
    optional={
        "initContainers": st.lists(
            st.fixed_dictionaries(
                {"name": st.just("init"), "image": st.just("i:1")},
                optional={
                    "ports": st.lists(
                        st.fixed_dictionaries(
                            {"containerPort": st.sampled_from([80, 65535, 0, 65536, 70000])}
                        ),
                        max_size=1,
                    ),
                    "imagePullPolicy": pool(["Always", "IfNotPresent"], ["always", "Sometimes"]),
                },
            ),
            max_size=1,
        ),
        "tolerations": TOLERATIONS,
        "nodeSelector": NODE_SELECTOR,
    },
)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(actor=CHECKED_PARTS)
def test_every_rendered_deployment_passes_the_rules_beyond_the_schemas(
    actor: dict[str, Any],
) -> None:
    refused_or_accepted(actor, [])


def test_the_oracle_catches_what_the_api_server_refuses() -> None:
    pod = {
        "containers": [
            {
                "name": "a",
                "image": "a:1",
                "env": [{"name": "X"}, {"name": "X"}, {"name": "B=C"}],
                "volumeMounts": [
                    {"name": "v", "mountPath": "/p"},
                    {"name": "w", "mountPath": "/p/"},
                ],
            },
            {"name": "a"},
        ],
        "volumes": [{"name": "v"}, {"name": "Bad"}, {"name": "two", "emptyDir": {}, "secret": {}}],
    }
    pod["containers"][1] |= {
        "ports": [{"containerPort": 70000, "name": "p"}, {"containerPort": 1, "name": "p"}],
        "imagePullPolicy": "always",
    }
    pod["containers"][0]["volumeMounts"].append({"name": "v", "mountPath": "/q", "subPath": "../x"})
    pod["nodeSelector"] = {"bad key": "v", "zone": "two words"}
    pod["tolerations"] = [
        {"key": "a", "operator": "Exists", "value": "x"},
        {"operator": "Equal", "tolerationSeconds": 5},
    ]
    pod["containers"][1]["resources"] = {
        "limits": {"cpu": "1", "gpu": "1", "example.com/dev": "0.5", "memory": "1Gb"},
        "requests": {"cpu": "2", "example.com/card": 1, "hugepages-2Mi": "-2Mi"},
    }
    assert sorted(podrules.violations(pod)) == sorted(
        [
            "container name 'a' twice",
            "volume name 'Bad' is not a DNS label",
            "container 'a': env name 'B=C' is invalid",
            "container 'a': env 'X' twice",
            "container 'a': a mount of the missing volume 'w'",
            "container 'a': /p mounted twice",
            "container 'a': no image",
            "volume 'two' has more than one source",
            "container 'a': limits of 'gpu', no container resource",
            "container 'a': limits.example.com/dev is not whole",
            "container 'a': limits.memory '1Gb' is no quantity",
            "container 'a': requests.hugepages-2Mi is negative",
            "container 'a': requests.cpu over its limit",
            "container 'a': requests.example.com/card without a limit",
            "container 'a': requests.hugepages-2Mi without a limit",
            "container 'a': port 70000 out of range",
            "container 'a': port 'p' twice",
            "container 'a': pull policy 'always'",
            "container 'a': subPath '../x' leaves its volume",
            "nodeSelector 'bad key': 'v' is no label",
            "nodeSelector 'zone': 'two words' is no label",
            "a value with Exists",
            "a toleration without a key is not Exists",
            "tolerationSeconds without NoExecute",
        ]
    )
