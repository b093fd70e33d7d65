"""The real API server judges what the function renders, both ways (SPEC §6.0).

Every render the function answers without a Fatal is accepted by server-side apply
(dry-run, unknown fields refused), the manifests inside provider-kubernetes Objects
included. And every refusal of the API server's rules the function keeps (the schemas,
the table of rows, a container's resources) is one the API server makes too: the same
actor rendered with those checks off is refused by the API server, or a false refusal
fails the test. Refusals of the platform's own (the typed spec, the allow-list, the Pod
Security level, the invariants) stand whatever the API server says.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from unittest import mock

import pytest
from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from google.protobuf import json_format
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis.control import currently_in_test_context

from function.validate import kube_schemas
from tests import support
from tests.cluster.dry_run import DryRun, api_server_rules_off
from tests.golden.cases import CASES, Case
from tests.unit import test_fuzz, test_pod_properties

GENERATED = settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_every_example_and_golden_case_is_accepted(case: Case, dry_run: DryRun) -> None:
    documents, _ = case.run()
    composed = [d for d in documents if d.get("kind") not in {"Result", "Context"}][1:]
    assert composed, f"{case.name} renders no composed object"
    assert dry_run.refusals(documents) == []


def composed(rsp: fnv1.RunFunctionResponse) -> list[dict[str, Any]]:
    """The composed objects of an answer, as plain data."""
    return [
        json_format.MessageToDict(resource.resource) for resource in rsp.desired.resources.values()
    ]


def _seen(what: str) -> None:
    """Count an outcome in hypothesis' statistics, when a generated example is running."""
    if currently_in_test_context():
        event(what)


def accepted_unless_refused(
    ask: Callable[[], fnv1.RunFunctionResponse], dry_run: DryRun, namespace: str = "default"
) -> None:
    """An answer is objects the API server accepts, or a Fatal of the platform's or of the API
    server's rules that the API server makes too."""
    refused = support.fatal_messages(rsp := ask())
    if not refused:
        _seen("rendered and applied")
        assert dry_run.refusals(composed(rsp), namespace) == []
        return
    with api_server_rules_off():
        unchecked = ask()
    if support.fatal_messages(unchecked):
        _seen("refused by the platform's own rules")
        return
    _seen("refused by an API-server rule, and by the API server")
    assert dry_run.refusals(composed(unchecked), namespace) != [], f"a false refusal: {refused}"


@GENERATED
@given(
    actor=test_pod_properties.PARTS,
    flavors=st.lists(test_pod_properties.PARTS, max_size=2),
    namespaced=st.booleans(),
)
def test_generated_actors_render_what_the_api_server_accepts(
    dry_run: DryRun, actor: dict[str, Any], flavors: list[dict[str, Any]], namespaced: bool
) -> None:
    accepted_unless_refused(
        lambda: test_pod_properties.answer(actor, flavors, namespaced), dry_run, "team"
    )


@GENERATED
@given(actor=test_pod_properties.RESOURCE_PARTS)
def test_generated_resources_render_what_the_api_server_accepts(
    dry_run: DryRun, actor: dict[str, Any]
) -> None:
    accepted_unless_refused(lambda: test_pod_properties.answer(actor, [], False), dry_run)


@GENERATED
@given(actor=test_pod_properties.CHECKED_PARTS)
def test_generated_pod_rules_render_what_the_api_server_accepts(
    dry_run: DryRun, actor: dict[str, Any]
) -> None:
    accepted_unless_refused(lambda: test_pod_properties.answer(actor, [], False), dry_run)


# The pod's fields passed through as Kubernetes types: mostly valid, now and then not.
POD_FIELDS = st.fixed_dictionaries(
    {},
    optional={
        "securityContext": st.sampled_from(
            [
                {"runAsNonRoot": True},
                {"readOnlyRootFilesystem": True},
                {"runAsUser": -1},
                {"bogus": 1},
            ]
        ),
        "podSecurityContext": st.sampled_from(
            [{"fsGroup": 2000}, {"runAsGroup": 3000}, {"fsGroupChangePolicy": "Sometimes"}]
        ),
        "imagePullSecrets": st.sampled_from([[{"name": "registry"}], [{"name": "Bad_Name"}], [{}]]),
        "priorityClassName": st.sampled_from(["batch-high", "Bad_Name"]),
        "envFrom": st.sampled_from(
            [
                [{"configMapRef": {"name": "settings"}}],
                [{"prefix": "A_", "secretRef": {"name": "s"}}],
                [{}],
            ]
        ),
        "affinity": st.sampled_from(
            [
                {
                    "podAntiAffinity": {
                        "preferredDuringSchedulingIgnoredDuringExecution": [
                            {"weight": 10, "podAffinityTerm": {"topologyKey": "zone"}}
                        ]
                    }
                },
                {
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}
                    }
                },
                {
                    "nodeAffinity": {
                        "preferredDuringSchedulingIgnoredDuringExecution": [
                            {"weight": 101, "preference": {}}
                        ]
                    }
                },
                {
                    "podAffinity": {
                        "preferredDuringSchedulingIgnoredDuringExecution": [
                            {"weight": 0, "podAffinityTerm": {"topologyKey": "zone"}}
                        ]
                    }
                },
                {
                    "podAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": ""}]
                    }
                },
            ]
        ),
        "topologySpreadConstraints": st.sampled_from(
            [
                [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway"}],
                [{"maxSkew": 0, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway"}],
            ]
        ),
    },
)


@GENERATED
@given(actor=POD_FIELDS, flavor=POD_FIELDS)
def test_generated_pod_fields_render_what_the_api_server_accepts(
    dry_run: DryRun, actor: dict[str, Any], flavor: dict[str, Any]
) -> None:
    accepted_unless_refused(lambda: test_pod_properties.answer(actor, [flavor], False), dry_run)


@GENERATED
@given(spec=test_fuzz.SPECS, flavor=test_fuzz.SPECS)
def test_fuzzed_specs_render_what_the_api_server_accepts(
    dry_run: DryRun, spec: dict[str, Any], flavor: dict[str, Any]
) -> None:
    req = test_fuzz.fuzzed_request(spec, flavor, {}, "fuzz")
    accepted_unless_refused(lambda: test_fuzz.call(req), dry_run)


def test_the_judge_refuses_what_the_api_server_refuses(dry_run: DryRun) -> None:
    # The same apply refuses an unknown field, a value of the wrong type and a rule
    # beyond the schema: a dry run that said yes to everything would prove nothing.
    [case] = [case for case in CASES if case.name == "text-processor-ready"]
    documents, _ = case.run()
    [deployment] = [
        d
        for d in documents
        if d.get("metadata", {})
        .get("annotations", {})
        .get("crossplane.io/composition-resource-name")
        == "deployment"
    ]
    manifest = deployment["spec"]["forProvider"]["manifest"]
    pod = manifest["spec"]["template"]["spec"]
    broken = [
        {**manifest, "spec": {**manifest["spec"], "bogus": 1}},
        {**manifest, "spec": {**manifest["spec"], "replicas": "two"}},
        {
            **manifest,
            "spec": {
                **manifest["spec"],
                "template": {
                    **manifest["spec"]["template"],
                    "spec": {**pod, "containers": [{**pod["containers"][0], "name": "Bad_Name"}]},
                },
            },
        },
    ]
    for body in broken:
        assert dry_run.refused(body) != [], body["spec"]
    assert dry_run.refused(manifest) == []


def test_the_judge_finds_a_false_refusal(dry_run: DryRun) -> None:
    # A schema check that refused a valid actor would be caught: the same actor rendered
    # without it is one the API server accepts.
    actor = {"sidecars": [{"name": "proxy", "image": "p:1"}]}

    def refuse(origin: Any) -> None:
        raise origin.refuse(("sidecars", 0, "image"), "refused for the test")

    with mock.patch.object(kube_schemas, "check", refuse), pytest.raises(AssertionError):
        accepted_unless_refused(lambda: test_pod_properties.answer(actor, [], False), dry_run)
    # And a refusal the API server makes too stands: a port past 65535.
    actor = {"sidecars": [{"name": "proxy", "image": "p:1", "ports": [{"containerPort": 70000}]}]}
    assert support.fatal_messages(test_pod_properties.answer(actor, [], False))
    accepted_unless_refused(lambda: test_pod_properties.answer(actor, [], False), dry_run)


@pytest.mark.parametrize("namespaced", [False, True])
def test_metrics_a_pod_monitor_and_a_pin_are_accepted(dry_run: DryRun, namespaced: bool) -> None:
    custom = [
        {"name": "tokens_total", "type": "counter", "help": "Tokens.", "labels": ["model"]},
        {"name": "latency_seconds", "type": "histogram", "buckets": [0.1, 1, 10]},
    ]
    actor = {"metrics": {"custom": custom}, "scaling": {"pinnedReplicas": 0}}
    metadata = {"name": "x", "namespace": "team"} if namespaced else None
    xr = support.MINIMAL_XR | {
        "metadata": metadata or support.MINIMAL_XR["metadata"],
        "spec": support.MINIMAL_XR["spec"] | actor,
    }
    settings = {"metrics": {"podMonitor": True, "interval": "30s"}}
    rsp = (
        test_pod_properties.fn.FunctionRunner()
        .answer(support.request(xr, input=support.struct(settings)))
        .message()
    )
    assert support.fatal_messages(rsp) == []
    kinds = [
        body.get("spec", {}).get("forProvider", {}).get("manifest", body)["kind"]
        for body in composed(rsp)
    ]
    assert "PodMonitor" in kinds
    assert dry_run.refusals(composed(rsp), "team") == []
