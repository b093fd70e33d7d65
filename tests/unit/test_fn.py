"""The boundary: every failure becomes a Fatal result, never an exception or gRPC error."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from crossplane.function import logging
from crossplane.function.proto.v1 import run_function_pb2 as fnv1

from function import parse, respond
from function import runner as fn
from function.codec import structs
from function.resolve import requirements
from tests import support


def run(req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
    return fn.FunctionRunner().answer(req).message()


def with_input(step_input: dict[str, Any]) -> fnv1.RunFunctionRequest:
    return support.request(
        support.MINIMAL_XR, input=support.struct(step_input), meta=fnv1.RequestMeta(tag="t")
    )


def test_an_empty_input_uses_every_default() -> None:
    rsp = run(with_input({}))
    assert support.fatal_messages(rsp) == []
    assert rsp.meta.ttl.seconds == 60
    assert rsp.meta.tag == "t"


def test_the_input_ttl_sets_the_response_ttl() -> None:
    rsp = run(with_input({"ttl": "2m30s"}))
    assert rsp.meta.ttl.seconds == 150


@pytest.mark.parametrize(
    ("ttl", "seconds", "nanos"),
    [("0", 0, 0), ("1.5h", 5400, 0), ("1500ms", 1, 500_000_000), ("1h0m5s", 3605, 0)],
)
def test_the_ttl_is_read_as_go_reads_a_duration(ttl: str, seconds: int, nanos: int) -> None:
    rsp = run(with_input({"ttl": ttl}))
    assert support.fatal_messages(rsp) == []
    assert (rsp.meta.ttl.seconds, rsp.meta.ttl.nanos) == (seconds, nanos)


@pytest.mark.parametrize(
    ("step_input", "expected"),
    [
        pytest.param({"aws": {"regoin": "x"}}, "aws.regoin: unknown field", id="typo-nested"),
        pytest.param({"colour": "red"}, "colour: unknown field", id="typo-top"),
        pytest.param({"keda": {"authProvider": "magic"}}, "keda.authProvider", id="bad-enum"),
        pytest.param(
            {"sqs": {"visibilityTimeoutSeconds": "soon"}},
            "sqs.visibilityTimeoutSeconds",
            id="bad-type",
        ),
        pytest.param({"ttl": "forever"}, "ttl", id="bad-ttl"),
        pytest.param({"ttl": "-5s"}, "ttl: must not be negative", id="negative ttl"),
        pytest.param(
            {
                "transport": "pubsub",
                "pubsub": {"project": "my-proj1", "messageRetentionDuration": "0s"},
            },
            "pubsub.messageRetentionDuration: must be from 600s (ten minutes) to 2678400s",
            id="a Pub/Sub retention shorter than the provider's CRD allows",
        ),
        pytest.param(
            {"aws": {"tags": {"aws:cloudformation": "x"}}},
            "aws.tags: ",
            id="a tag key in AWS's own aws: prefix",
        ),
        pytest.param({"aws": {"tags": {"": "x"}}}, "aws.tags: ", id="an empty tag key"),
        pytest.param(
            {"aws": {"tags": {"team": "aws:x"}}},
            "aws.tags: the tag 'team' uses AWS's own prefix aws:",
            id="a tag value in AWS's own prefix",
        ),
        pytest.param(
            {"sidecar": {"socketDir": "//tmp"}},
            "sidecar.socketDir is //tmp, where the pod's /tmp is mounted already",
            id="a socket dir at /tmp by two leading slashes",
        ),
        pytest.param(
            {"sidecar": {"runtimeMountPath": "//"}},
            "sidecar.runtimeMountPath: '//' is not an absolute path below /",
            id="the root by two slashes",
        ),
        pytest.param(
            {"aws": {"providerConfigName": "Bad Name"}},
            "aws.providerConfigName: 'Bad Name' is not an object name",
            id="a provider config that is no object name",
        ),
        pytest.param(
            {"kubernetes": {"providerConfigName": ""}},
            "kubernetes.providerConfigName: '' is not an object name",
            id="an empty provider-kubernetes config",
        ),
        pytest.param(
            {"irsa": {"enabled": True}},
            "irsa.enabled needs aws.accountId (the role ARN pattern's ACCOUNT_ID) or irsa.roleArn",
            id="IRSA without an account (rendered arn:aws:iam::ACCOUNT_ID:... before)",
        ),
        pytest.param(
            {"irsa": {"enabled": True}, "sidecar": {"awsCredsSecret": "aws-creds"}},
            "irsa.enabled needs aws.accountId",
            id="IRSA without an account beside the sidecar's keys: the runtime assumes the role",
        ),
        pytest.param(
            {
                "irsa": {"enabled": True, "roleArnPattern": "arn:aws:iam::ACCOUNT_ID:role/{team}"},
                "aws": {"accountId": "123456789012"},
            },
            "irsa.roleArnPattern: fills in only {namespace} and ACCOUNT_ID",
            id="a role pattern with a placeholder nothing fills in",
        ),
        pytest.param(
            {"irsa": {"enabled": True, "roleArn": "asya-actors"}},
            "irsa.roleArn",
            id="a role that is no IAM role ARN",
        ),
        pytest.param(
            {"ttl": "9999999999h"},
            "ttl: must be within 2562047h47m16.854775807s",
            id="ttl past Go's durations (rendered past protobuf's before)",
        ),
        pytest.param(
            {"keda": {"authProvider": "secret"}},
            "keda.secretRef.name is required with keda.authProvider: secret",
            id="secret mode without a secret (rendered name: '' before)",
        ),
        pytest.param(
            {"aws": {"region": "Frankfurt"}},
            "aws.region: 'Frankfurt' is not an AWS region (such as us-east-1)",
            id="a region that is not one",
        ),
        pytest.param(
            {"aws": {"accountId": "1234"}},
            "aws.accountId: '1234' is not an AWS account id (12 digits)",
            id="an account id that is not 12 digits",
        ),
        pytest.param(
            {"transport": "pubsub"},
            "pubsub.project is required with transport: pubsub",
            id="pubsub without a project (rendered projects//subscriptions/... upstream)",
        ),
        pytest.param(
            {"transport": "pubsub", "pubsub": {"project": "My Project!"}},
            "pubsub.project: 'My Project!' is not a GCP project id",
            id="a project id GCP refuses (rendered projects/My Project!/... before)",
        ),
        pytest.param(
            {"sqs": {"messageRetentionSeconds": 1209601}},
            "sqs.messageRetentionSeconds: Input should be less than or equal to 1209600",
            id="a retention past SQS's 14 days",
        ),
        pytest.param(
            {"sqs": {"visibilityTimeoutSeconds": 43201}},
            "sqs.visibilityTimeoutSeconds: Input should be less than or equal to 43200",
            id="a visibility past SQS's 12 hours",
        ),
        pytest.param(
            {"sidecar": {"socketDir": "/tmp"}},
            "sidecar.socketDir is /tmp, where the pod's /tmp is mounted already",
            id="a socket directory over /tmp (a mountPath twice in one container before)",
        ),
        pytest.param(
            {"sidecar": {"runtimeMountPath": "/var/run/asya/"}},
            "sidecar.runtimeMountPath is /var/run/asya/, where sidecar.socketDir is mounted",
            id="the runtime script over the socket directory",
        ),
        pytest.param(
            {"sidecar": {"socketDir": ""}},
            "sidecar.socketDir: '' is not an absolute path below /",
            id="an empty socket directory (a mount without a path before)",
        ),
        pytest.param(
            {"sidecar": {"runtimeConfigMap": ""}},
            "sidecar.runtimeConfigMap: '' is not an object name",
            id="a runtime ConfigMap without a name",
        ),
        pytest.param(
            {"sidecar": {"awsCredsSecret": "AWS_CREDS"}},
            "sidecar.awsCredsSecret: 'AWS_CREDS' is not an object name",
            id="an envFrom Secret that is no object name",
        ),
        pytest.param(
            {"transport": "rabbitmq", "rabbitmq": {"credsSecret": "Bad_Name"}},
            "rabbitmq.credsSecret: 'Bad_Name' is not an object name",
            id="a broker Secret that is no object name",
        ),
        pytest.param(
            {"irsa": {"enabled": True, "serviceAccountName": "Asya_Actors"}},
            "irsa.serviceAccountName: 'Asya_Actors' is not an object name",
            id="a ServiceAccount name that is no object name",
        ),
        pytest.param(
            {"keda": {"secretRef": {"name": "keys", "accessKeyIdKey": "a b"}}},
            "keda.secretRef.accessKeyIdKey: 'a b' is not a key",
            id="a Secret key that is no key",
        ),
        pytest.param(
            {"apiVersion": "asya.fn.crossplane.io/v2"},
            "apiVersion: Input should be 'asya.fn.crossplane.io/v1beta1'",
            id="an Input version the function does not know",
        ),
    ],
)
def test_an_invalid_input_is_a_fatal_result_naming_the_field(
    step_input: dict[str, Any], expected: str
) -> None:
    rsp = run(with_input(step_input))
    [message] = support.fatal_messages(rsp)
    assert message.startswith("invalid function input: ")
    assert expected in message


def test_a_request_without_an_observed_composite_is_a_fatal_result() -> None:
    rsp = run(fnv1.RunFunctionRequest(meta=fnv1.RequestMeta(tag="x")))
    assert support.fatal_messages(rsp) == [
        "cannot read the observed composite resource: the request has none"
    ]
    assert rsp.meta.tag == "x"


def test_an_unexpected_exception_becomes_a_fatal_result(monkeypatch: pytest.MonkeyPatch) -> None:
    def explode(_req: fnv1.RunFunctionRequest) -> dict[str, Any]:
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(fn.parse, "settings", explode)
    req = with_input({})
    req.desired.resources["from-earlier-step"].resource.update({"kind": "Thing"})
    rsp = run(req)
    assert support.fatal_messages(rsp) == [respond.INTERNAL_ERROR]
    # What earlier steps desired passes through untouched.
    assert list(rsp.desired.resources) == ["from-earlier-step"]


def test_status_merges_into_what_earlier_steps_set_and_readiness_is_set() -> None:
    req = with_input({})
    req.desired.composite.resource.update({"status": {"fromEarlierStep": "kept", "phase": "stale"}})
    rsp = run(req)
    status = structs.plain(rsp.desired.composite.resource)["status"]
    assert status["fromEarlierStep"] == "kept"
    assert status["phase"] == "Creating"
    assert set(rsp.desired.resources) == {"sqs-queue", "triggerauthentication", "deployment"}
    assert {r.ready for r in rsp.desired.resources.values()} == {fnv1.READY_FALSE}


def test_what_this_step_writes_replaces_the_same_keys_of_earlier_steps_and_keeps_the_rest() -> None:
    req = with_input({})
    req.desired.composite.resource.update(
        {"spec": {"stale": True}, "status": {"kept": 1}, "fromEarlierStep": "kept"}
    )
    earlier = req.desired.resources["deployment"]
    earlier.resource.update({"kind": "Stale", "extra": {"kept": True}})
    earlier.connection_details["password"] = b"kept"
    earlier.ready = fnv1.READY_TRUE
    req.desired.resources["other-step"].resource.update({"kind": "Other"})
    req.context.update({respond.RESOLVED_SPEC_CONTEXT_KEY: {"stale": True}, "other": "kept"})

    rsp = run(req)

    assert support.fatal_messages(rsp) == []
    composite = structs.plain(rsp.desired.composite.resource)
    assert composite["fromEarlierStep"] == "kept"
    assert "stale" not in composite["spec"]
    assert composite["spec"]["image"] == support.MINIMAL_XR["spec"]["image"]
    assert composite["status"]["kept"] == 1
    deployment = rsp.desired.resources["deployment"]
    body = structs.plain(deployment.resource)
    assert body["kind"] == "Object"  # the Deployment, wrapped for provider-kubernetes
    assert body["extra"] == {"kept": True}
    assert dict(deployment.connection_details) == {"password": b"kept"}
    assert deployment.ready == fnv1.READY_FALSE
    assert structs.plain(rsp.desired.resources["other-step"].resource) == {"kind": "Other"}
    context = structs.plain(rsp.context)
    assert context["other"] == "kept"
    assert context[respond.RESOLVED_SPEC_CONTEXT_KEY] == composite["spec"]


def test_a_render_error_returns_no_partial_desired_state() -> None:
    xr = support.MINIMAL_XR | {
        "metadata": {"name": "x", "labels": {"crossplane.io/claim-namespace": "n" * 30}},
        "spec": support.MINIMAL_XR["spec"] | {"actor": "a" * 63},
    }
    req = support.request(xr, input=support.struct({}))
    req.desired.resources["from-earlier-step"].resource.update({"kind": "Kept"})
    rsp = run(req)
    [message] = support.fatal_messages(rsp)
    assert "SQS allows 80" in message
    assert list(rsp.desired.resources) == ["from-earlier-step"]
    assert "spec" not in structs.plain(rsp.desired.composite.resource)


def test_the_transport_refuses_before_anything_is_rendered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A queue name SQS cannot take is refused before a renderer runs: none may raise mid-render.
    def never(plan: Any) -> Any:
        raise AssertionError("rendered an actor the transport refuses")

    monkeypatch.setattr(
        fn.renderers, "RESOURCES", tuple((name, never) for name, _ in fn.renderers.RESOURCES)
    )
    monkeypatch.setattr(fn.renderers.transports.SQS, "resources", lambda _, plan: never(plan))
    xr = support.MINIMAL_XR | {
        "metadata": {"name": "x", "labels": {"crossplane.io/claim-namespace": "n" * 30}},
        "spec": support.MINIMAL_XR["spec"] | {"actor": "a" * 63},
    }
    [message] = support.fatal_messages(run(support.request(xr, input=support.struct({}))))
    assert "SQS allows 80" in message


def test_observed_metadata_never_reaches_the_desired_xr() -> None:
    xr = support.MINIMAL_XR | {
        "metadata": support.MINIMAL_XR["metadata"]
        | {"managedFields": [{"manager": "x"}], "resourceVersion": "42"}
    }
    rsp = run(support.request(xr, input=support.struct({})))
    assert set(structs.plain(rsp.desired.composite.resource)) == {"spec", "status"}


def test_remembered_flavors_come_out_of_calls_unchanged() -> None:
    """Resolving, the renderers and the response must never write into what the memo shares."""
    flavor_body = {
        "apiVersion": "apiextensions.crossplane.io/v1beta1",
        "kind": "EnvironmentConfig",
        "metadata": {"name": "shape"},
        "data": {
            "env": [{"name": "A", "value": "1"}],
            "scaling": {"maxReplicaCount": 4},
            "stateProxy": [
                {"name": "meta", "mount": {"path": "/state"}, "connector": {"image": "c:1"}}
            ],
            "tolerations": [{"key": "gpu", "operator": "Exists"}],
        },
    }
    xr = support.MINIMAL_XR | {
        "spec": support.MINIMAL_XR["spec"]
        | {"flavors": ["shape"], "env": [{"name": "B", "value": "2"}]}
    }
    req = support.request(xr, input=support.struct({}))
    req.required_resources["flavor-shape"].items.add().resource.update(flavor_body)
    runner = fn.FunctionRunner()
    first = runner.answer(req).message().SerializeToString(deterministic=True)
    [kept] = runner.memo._items.values()
    before = copy.deepcopy(kept)
    answers = {runner.answer(req).message().SerializeToString(deterministic=True) for _ in range(2)}
    assert answers == {first}
    assert support.fatal_messages(fnv1.RunFunctionResponse.FromString(first)) == []
    assert runner.memo.hits == 2
    assert kept == before
    assert kept.flavors.fetched[0].data == flavor_body["data"]
    unremembered = fn.FunctionRunner(memo_size=0).answer(req).message()
    assert unremembered.SerializeToString(deterministic=True) == first


@pytest.mark.parametrize(
    ("metadata", "message"),
    [
        pytest.param(
            {"name": "x", "labels": "oops"},
            "cannot read the observed composite resource: metadata.labels must be a map",
            id="labels that are not a map (escaped as a gRPC error before)",
        ),
        pytest.param(
            {"name": "x", "labels": {"crossplane.io/claim-namespace": ["a"]}},
            "cannot read the observed composite resource: "
            "metadata.labels[crossplane.io/claim-namespace] must be a string",
            id="a claim namespace that is a list (rendered into every object before)",
        ),
        pytest.param(
            {"name": "x", "namespace": 3},
            "cannot read the observed composite resource: metadata.namespace must be a string",
            id="a namespace that is a number",
        ),
    ],
)
def test_xr_metadata_of_the_wrong_shape_is_a_fatal_naming_it(
    metadata: dict[str, Any], message: str
) -> None:
    xr = support.MINIMAL_XR | {"metadata": metadata}
    rsp = run(support.request(xr, meta=fnv1.RequestMeta(tag="shape")))
    assert support.fatal_messages(rsp) == [message]
    assert rsp.meta.tag == "shape"


def test_flavors_applied_is_logged_when_an_actors_flavors_change() -> None:
    applied = fn.AppliedFlavors()
    assert applied.changed("ns/a", ("gpu",))
    assert not applied.changed("ns/a", ("gpu",))
    assert applied.changed("ns/b", ("gpu",))
    assert applied.changed("ns/a", ("gpu", "spot"))
    for index in range(fn.AppliedFlavors.SIZE):
        applied.changed(f"ns/{index}", ("x",))
    # Forgotten once the oldest of SIZE: logged again, never more than that remembered.
    assert applied.changed("ns/a", ("gpu", "spot"))


def test_the_flavors_log_line_is_written_once_while_an_actors_flavors_stay(
    capsys: pytest.CaptureFixture[str],
) -> None:
    logging.configure(level=logging.Level.INFO)
    runner = fn.FunctionRunner()
    first = runner.answer(support.flavored_request({"replicas": 2}))
    assert "Flavors applied" not in capsys.readouterr().out  # written after the answer
    for job in first.after_sending:
        job()
    assert capsys.readouterr().out.count("Flavors applied") == 1
    assert not runner.answer(support.flavored_request({"replicas": 3})).after_sending


def _two_flavors(order: list[str], **xr_metadata: Any) -> fnv1.RunFunctionRequest:
    xr = support.MINIMAL_XR | {
        "metadata": support.MINIMAL_XR["metadata"] | xr_metadata,
        "spec": support.MINIMAL_XR["spec"] | {"flavors": order},
    }
    req = support.request(xr, input=support.struct({}))
    for name, replicas in (("fast", 3), ("slow", 1)):
        req.required_resources[f"flavor-{name}"].items.add().resource.update(
            {"metadata": {"name": name}, "data": {"replicas": replicas}}
        )
    return req


def memo_key(req: fnv1.RunFunctionRequest, selectors: bool = False) -> bytes:
    if selectors:
        req.meta.capabilities.append(fnv1.CAPABILITY_REQUIRED_RESOURCES)
    request = parse.read(req)
    return fn.memo_key(request, requirements.possible_keys(request.xr.flavors))


def test_the_resolve_memo_keeps_apart_what_decides_an_actors_flavors() -> None:
    key = memo_key(_two_flavors(["fast", "slow"]))
    assert memo_key(_two_flavors(["fast", "slow"])) == key
    assert memo_key(_two_flavors(["slow", "fast"])) != key
    assert memo_key(_two_flavors(["fast", "slow"]), selectors=True) != key
    assert memo_key(_two_flavors(["fast", "slow"], namespace="other")) != key
    observed = _two_flavors(["fast", "slow"])
    observed.observed.resources["deployment"].resource.update({"status": {"replicas": 1}})
    assert memo_key(observed) == key


def test_a_remembered_clash_is_still_named_in_the_order_each_actor_lists_its_flavors() -> None:
    runner = fn.FunctionRunner()
    first = support.fatal_messages(runner.answer(_two_flavors(["fast", "slow"])).message())
    second = support.fatal_messages(runner.answer(_two_flavors(["slow", "fast"])).message())
    assert first == ['flavor merge conflict: flavors "fast" and "slow" conflict on replicas']
    assert second == ['flavor merge conflict: flavors "slow" and "fast" conflict on replicas']
    # Remembered: the clash is the actor's to settle, and this one does.
    settled = _two_flavors(["fast", "slow"])
    settled.observed.composite.resource["spec"].update({"replicas": 2})
    rsp = runner.answer(settled).message()
    assert support.fatal_messages(rsp) == []
    assert runner.memo.hits >= 1


def test_a_remembered_flavor_that_nests_too_deeply_is_refused_on_every_call() -> None:
    deep: dict[str, Any] = {}
    for _ in range(25):
        deep = {"k": deep}
    runner = fn.FunctionRunner()
    answers = [
        support.fatal_messages(runner.answer(support.flavored_request({"labels": deep})).message())
        for _ in range(3)
    ]
    assert answers[0] == answers[1] == answers[2]
    assert answers[0][0].startswith("invalid flavor data: labels.k.k")
    assert '(from flavor "shape")' in answers[0][0]
    assert runner.memo.hits == 2


def test_an_input_value_the_function_never_reads_is_not_held_to_its_rule() -> None:
    # The shared ServiceAccount's name is read only with IRSA on.
    rsp = run(with_input({"irsa": {"enabled": False, "serviceAccountName": ""}}))
    assert support.fatal_messages(rsp) == []


def test_the_platforms_own_tags_win_over_the_inputs() -> None:
    tags = {"asya.sh/actor": "someone-else", "team": "ml"}
    rsp = run(with_input({"aws": {"tags": tags}}))
    queue = structs.value_of(rsp.desired.resources["sqs-queue"].resource.fields["spec"])
    written = queue["forProvider"]["tags"]
    assert written["team"] == "ml"
    assert written["asya.sh/actor"] != "someone-else"


def test_a_pubsub_retention_in_fractions_of_a_second_is_taken() -> None:
    settings = {"transport": "pubsub", "pubsub": {"project": "my-proj1"}}
    settings["pubsub"]["messageRetentionDuration"] = "600.5s"
    assert support.fatal_messages(run(with_input(settings))) == []


@pytest.mark.parametrize(
    "step_input",
    [
        # Unused with IRSA off, the role fields may be anything.
        {"irsa": {"roleArnPattern": "arn:aws:iam::123456789012:role/{cluster}-{namespace}"}},
        {"irsa": {"roleArn": "asya-actors"}},
    ],
    ids=["a pattern IRSA off never reads", "a role IRSA off never reads"],
)
def test_a_role_no_one_assumes_is_not_held_to_anything(step_input: dict[str, Any]) -> None:
    assert support.fatal_messages(run(with_input(step_input))) == []


@pytest.mark.parametrize("actor", ["Bad_Name", "-echo", "echo-"])
def test_an_actor_name_refusal_says_the_rule_in_words(actor: str) -> None:
    xr = copy.deepcopy(support.MINIMAL_XR)
    xr["spec"]["actor"] = actor
    [result] = run(support.request(xr, input=support.struct({}))).results
    assert result.message == (
        "invalid actor spec: actor: not a name: lowercase letters, digits and '-', "
        "starting and ending with a letter or digit (from the actor's spec)"
    )
