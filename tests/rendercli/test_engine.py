"""`function-asya render` as crossplane render v2.3+ prints it: one pass of the reconciler."""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from google.protobuf import struct_pb2

from function.cli.render import composed, engine, files, legacy, reconcile, release
from function.cli.render.errors import RenderError
from function.cli.render.pipeline import Outcome
from tests.rendercli.scripted import Scripted
from tests.rendercli.test_render import V2_2, documents, render, scripted, write, xrd_file

__all__ = ["scripted"]  # the fixture, shared with test_render

UID = "1234-uid"
NOT_YET_READY = 'Composed resource "a-waiting" is not yet ready'


@dataclass(frozen=True)
class ChildNameCase:
    reason: str
    parent: str
    child: str
    want: str


# Crossplane's own cases (internal/names/names_test.go), one owner UID for all.
CHILD_NAMES = [
    ChildNameCase(
        "fits: parent + 12 hex digits", "cool-resource-", "database", "cool-resource-38ce86992a27"
    ),
    ChildNameCase("a hyphen is added", "resource", "database", "resource-38ce86992a27"),
    ChildNameCase("no second hyphen", "resource-", "database", "resource-38ce86992a27"),
    ChildNameCase("no parent", "", "database", "38ce86992a27"),
    ChildNameCase(
        "truncated to 63",
        "very-long-parent-name-" * 3,
        "database",
        "very-long-parent-name-very-long-parent-name-very-l-38ce86992a27",
    ),
    ChildNameCase(
        "truncated, then a hyphen",
        "very-long-parent-name-without-ending-hyphen" * 2,
        "database",
        "very-long-parent-name-without-ending-hyphenvery-lo-38ce86992a27",
    ),
]


@pytest.mark.parametrize("case", CHILD_NAMES, ids=[c.reason for c in CHILD_NAMES])
def test_child_names_are_derived_as_crossplane_derives_them(case: ChildNameCase) -> None:
    assert composed.child_name(case.parent, "75e4a668-035f-4ce8-8c45-f4d3ac850155", case.child) == (
        case.want
    )


def test_an_xr_without_a_uid_gets_the_engines_sha1_uuid() -> None:
    xr = files.Document(
        "xr.yaml",
        {
            "apiVersion": "example.org/v1",
            "kind": "XThing",
            "metadata": {"name": "a", "namespace": "ns"},
        },
    )
    # uuid.NewSHA1(uuid.Nil, "<gvk>\x00<namespace>\x00<name>"), computed here by hand.
    key = b"example.org/v1, Kind=XThing\x00ns\x00a"
    digest = bytearray(hashlib.sha1(bytes(16) + key).digest()[:16])  # noqa: S324
    digest[6] = (digest[6] & 0x0F) | 0x50
    digest[8] = (digest[8] & 0x3F) | 0x80
    assert reconcile.deterministic_uid(xr) == str(uuid.UUID(bytes=bytes(digest)))
    core = files.Document(
        "xr.yaml", {"apiVersion": "v1", "kind": "XThing", "metadata": {"name": "a"}}
    )
    assert reconcile.group_version_kind(core.api_version, core.kind) == "/v1, Kind=XThing"


@dataclass(frozen=True)
class ReleaseCase:
    version: str | None
    want: release.Release | None


RELEASES = [
    ReleaseCase(None, release.CURRENT),
    ReleaseCase("stable", release.CURRENT),
    ReleaseCase("v2.3.0", release.CURRENT),
    ReleaseCase("v2.5.1", release.CURRENT),
    ReleaseCase("v3.0", release.CURRENT),
    ReleaseCase("v2.2.4", release.V2_2),
    ReleaseCase("2.2", release.V2_2),
    ReleaseCase("v2.1.3", release.V2_0),
    ReleaseCase("v2.0.0-rc.1", release.V2_0),
    ReleaseCase("v1.20.0", None),
    ReleaseCase("banana", None),
]


@pytest.mark.parametrize("case", RELEASES, ids=[str(c.version) for c in RELEASES])
def test_crossplane_version_picks_the_release_to_follow(case: ReleaseCase) -> None:
    if case.want is None:
        with pytest.raises(RenderError, match="--crossplane-version"):
            release.parse(case.version)
    else:
        assert release.parse(case.version) == case.want


def test_include_full_xr_merges_as_mergo_with_override() -> None:
    target = {"a": {"keep": 1, "over": 1}, "list": [1, 2], "s": "x", "empty": "kept"}
    source = {"a": {"over": 2, "new": 3}, "list": [3], "s": "", "empty": "", "added": ""}
    assert engine.merge_override(target, source) == {
        "a": {"keep": 1, "over": 2, "new": 3},
        "list": [3],
        "s": "x",
        "empty": "kept",
        "added": "",
    }


def _by_kind(docs: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for doc in docs:
        out.setdefault(doc["kind"], []).append(doc)
    return out


@pytest.mark.slow
def test_the_xr_is_the_reconcilers_last_status_write(
    tmp_path: Path, scripted: tuple[Scripted, str]
) -> None:
    _, target = scripted
    docs = documents(render(tmp_path, target, "emit", args=("-r", "-c")))
    xr = docs[0]
    # The references write leaves the name and the refs; the desired spec is not printed.
    assert xr["metadata"] == {"name": "thing-abc"}
    names = {
        d["metadata"]["annotations"]["crossplane.io/composition-resource-name"]: d["metadata"][
            "name"
        ]
        for d in docs[1:3]
    }
    assert xr["spec"] == {
        "crossplane": {
            "resourceRefs": [
                {"apiVersion": "v1", "kind": "ConfigMap", "name": names["b-ready"]},
                {"apiVersion": "v1", "kind": "Secret", "name": names["a-waiting"]},
            ]
        }
    }
    assert xr["status"]["phase"] == "Creating"
    at = "2024-01-01T00:00:00Z"
    assert xr["status"]["conditions"] == [
        {
            "type": "Responsive",
            "status": "True",
            "reason": "WatchCircuitClosed",
            "lastTransitionTime": at,
        },
        {
            "type": "Custom",
            "status": "True",
            "reason": "Fine",
            "message": "all good",
            "lastTransitionTime": at,
        },
        {
            "type": "Synced",
            "status": "True",
            "reason": "ReconcileSuccess",
            "lastTransitionTime": at,
        },
        {
            "type": "Ready",
            "status": "False",
            "reason": "Creating",
            "message": "Unready resources: a-waiting",
            "lastTransitionTime": at,
        },
    ]
    kinds = _by_kind(docs)
    assert [r["message"] for r in kinds["Result"]] == [
        "Successfully selected composition: things",
        'Pipeline step "step-0": something to look at',
        NOT_YET_READY,
    ]
    assert kinds["Result"][1] == {
        "apiVersion": "render.crossplane.io/v1beta1",
        "kind": "Result",
        "severity": "Warning",
        "reason": "ComposeResources",
        "message": 'Pipeline step "step-0": something to look at',
    }
    assert kinds["Context"][0]["fields"]["example.org/key"] == {"n": 1}


@pytest.mark.slow
def test_composed_resources_are_named_from_the_owner_uid(
    tmp_path: Path, scripted: tuple[Scripted, str]
) -> None:
    _, target = scripted
    waiting, ready = documents(render(tmp_path, target, "emit"))[1:3]
    assert waiting["metadata"]["name"] == composed.child_name("thing-abc-", UID, "a-waiting")
    assert ready["metadata"]["name"] == composed.child_name("thing-abc-", UID, "b-ready")
    assert waiting["metadata"]["generateName"] == "thing-abc-"
    assert waiting["metadata"]["ownerReferences"][0]["uid"] == UID


@pytest.mark.slow
def test_without_a_uid_the_owner_carries_the_deterministic_one(
    tmp_path: Path, scripted: tuple[Scripted, str]
) -> None:
    function, target = scripted
    xr = "apiVersion: example.org/v1\nkind: XThing\nmetadata: {name: thing-abc}\nspec: {size: 1}\n"
    waiting = documents(render(tmp_path, target, "emit", xr=xr))[1]
    uid = reconcile.deterministic_uid(files.load_text(xr, "xr.yaml")[0])
    assert waiting["metadata"]["ownerReferences"][0]["uid"] == uid
    assert waiting["metadata"]["name"] == composed.child_name("thing-abc-", uid, "a-waiting")
    # Twice the same bytes.
    assert (
        render(tmp_path, target, "emit", xr=xr).stdout
        == render(tmp_path, target, "emit", xr=xr).stdout
    )
    assert function.calls[0].observed.composite.resource["metadata"]["uid"] == uid


@pytest.mark.slow
def test_the_functions_observe_the_xr_as_the_reconciler_holds_it(
    tmp_path: Path, scripted: tuple[Scripted, str]
) -> None:
    function, target = scripted
    documents(render(tmp_path, target, "emit"))
    observed = function.calls[0].observed.composite.resource
    assert observed["metadata"]["uid"] == UID
    assert observed["metadata"]["resourceVersion"] == "999"
    assert observed["metadata"]["labels"]["crossplane.io/composite"] == "thing-abc"
    assert observed["spec"]["crossplane"]["compositionRef"] == {"name": "things"}
    assert [c["type"] for c in observed["status"]["conditions"]] == ["Responsive"]


@pytest.mark.slow
def test_each_release_sends_its_own_request_meta(
    tmp_path: Path, scripted: tuple[Scripted, str]
) -> None:
    function, target = scripted
    settings = write(
        tmp_path,
        "settings.yaml",
        "apiVersion: apiextensions.crossplane.io/v1beta1\nkind: EnvironmentConfig\nmetadata: {name: settings}\ndata: {colour: green}\n",
    )
    documents(render(tmp_path, target, "require", args=("-e", settings)))
    first, second = function.calls
    # Core's tag: the SHA-256 of the request before meta is set, kept across the loop.
    untagged = fnv1.RunFunctionRequest()
    untagged.CopyFrom(first)
    untagged.ClearField("meta")
    want = hashlib.sha256(untagged.SerializeToString(deterministic=True)).hexdigest()
    assert first.meta.tag == second.meta.tag == want
    assert fnv1.CAPABILITY_REQUIRED_SCHEMAS in first.meta.capabilities

    function.calls.clear()
    documents(render(tmp_path, target, "require", args=("-e", settings, *V2_2)))
    assert function.calls[0].meta.tag == ""
    assert len(function.calls[0].meta.capabilities) == 5

    function.calls.clear()
    documents(
        render(tmp_path, target, "require", args=("-e", settings, "--crossplane-version", "v2.1.0"))
    )
    assert not function.calls[0].HasField("meta")


@pytest.mark.slow
def test_include_full_xr_merges_the_result_into_the_input(
    tmp_path: Path, scripted: tuple[Scripted, str]
) -> None:
    _, target = scripted
    xr = documents(render(tmp_path, target, "emit", args=("-x",)))[0]
    assert xr["spec"]["size"] == 1
    assert len(xr["spec"]["crossplane"]["resourceRefs"]) == 2
    assert xr["metadata"]["uid"] == UID
    assert xr["metadata"]["labels"]["crossplane.io/claim-name"] == "thing"


@pytest.mark.slow
def test_a_legacy_xrd_keeps_the_references_in_spec(
    tmp_path: Path, scripted: tuple[Scripted, str]
) -> None:
    function, target = scripted
    # A v1 XRD without a scope: LegacyCluster.
    xrd = xrd_file(tmp_path)
    xr = documents(render(tmp_path, target, "emit", args=("--xrd", xrd)))[0]
    assert set(xr["spec"]) == {"resourceRefs"}
    assert function.calls[0].observed.composite.resource["spec"]["compositionRef"] == {
        "name": "things"
    }


@pytest.mark.slow
def test_a_namespaced_xr_overrides_a_composed_namespace_with_a_warning(
    tmp_path: Path, scripted: tuple[Scripted, str]
) -> None:
    _, target = scripted
    xr = "apiVersion: example.org/v1\nkind: XThing\nmetadata: {name: thing-abc, namespace: team, uid: u}\n"
    observed = write(
        tmp_path,
        "observed.yaml",
        """
        apiVersion: v1
        kind: Secret
        metadata:
          name: kept-name
          namespace: team
          annotations: {crossplane.io/composition-resource-name: a-waiting}
        """,
    )
    docs = documents(
        render(tmp_path, target, "emit", "namespaced", args=("-r", "-o", observed), xr=xr)
    )
    xr_doc, waiting, ready = docs[:3]
    assert waiting["metadata"]["name"] == "kept-name"
    assert ready["metadata"]["namespace"] == "team"
    # A namespaced XR's references carry no namespace.
    assert all("namespace" not in r for r in xr_doc["spec"]["crossplane"]["resourceRefs"])
    warnings = [r for r in docs if r["kind"] == "Result" and r["severity"] == "Warning"]
    assert warnings[-1] == {
        "apiVersion": "render.crossplane.io/v1beta1",
        "kind": "Result",
        "severity": "Warning",
        "reason": "NamespaceOverridden",
        "message": 'cannot create composed resource "b-ready" in namespace "elsewhere", using XR '
        'namespace "team" instead',
    }


@dataclass(frozen=True)
class RefusedCase:
    reason: str
    observed: str
    message: str


REFUSED = [
    RefusedCase(
        "controlled by another XR",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  annotations: {crossplane.io/composition-resource-name: a-waiting}\n"
        "  ownerReferences: [{apiVersion: v1, kind: X, name: other, uid: other, controller: true}]\n",
        "invalid observed resources: observed resource s has a controller ref but is not controlled by the XR",
    ),
    RefusedCase(
        "without its composition resource name",
        "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n",
        'encountered composed resource without required "crossplane.io/composition-resource-name" annotation',
    ),
]


@pytest.mark.slow
@pytest.mark.parametrize("case", REFUSED, ids=[c.reason for c in REFUSED])
def test_the_engine_refuses_observed_resources_it_cannot_read(
    tmp_path: Path, scripted: tuple[Scripted, str], case: RefusedCase
) -> None:
    function, target = scripted
    result = render(
        tmp_path, target, "emit", args=("-o", write(tmp_path, "observed.yaml", case.observed))
    )
    assert result.returncode == 1
    assert result.stdout == ""
    assert case.message in result.stderr
    assert function.calls == []


@pytest.mark.slow
def test_a_fatal_result_is_reported_as_the_engine_reports_it(
    tmp_path: Path, scripted: tuple[Scripted, str]
) -> None:
    _, target = scripted
    result = render(tmp_path, target, "emit", "fatal")
    assert result.returncode == 1
    assert result.stdout == ""
    assert (
        "cannot render composite resource: crossplane internal render: pipeline returned fatal: "
        'cannot compose resources: pipeline step "step-1" returned a fatal result: this cannot work'
    ) in result.stderr


@pytest.mark.parametrize("engine_shape", [True, False], ids=["v2.3", "v2.2"])
def test_only_ready_synced_and_healthy_are_kept_from_functions(engine_shape: bool) -> None:
    # crossplane-runtime's IsSystemConditionType (render-fidelity §1 row 14).
    outcome = Outcome(desired=fnv1.State(), context=struct_pb2.Struct())
    for kind in ("Ready", "Synced", "Healthy", "UpToDate", "Responsive"):
        outcome.conditions.append(
            fnv1.Condition(type=kind, status=fnv1.STATUS_CONDITION_FALSE, reason="FromFunction")
        )
    xr = files.Document(
        "xr.yaml",
        {"apiVersion": "example.org/v1", "kind": "XThing", "metadata": {"name": "a"}, "spec": {}},
    )
    composition = files.Document(
        "c.yaml",
        {
            "apiVersion": "apiextensions.crossplane.io/v1",
            "kind": "Composition",
            "metadata": {"name": "c"},
        },
    )
    if engine_shape:
        rec = engine.begin(xr, composition, [], None)
        document = engine.composite(rec, xr, outcome, [], full=False)
    else:
        document = legacy.composite(xr, outcome, full=False)
    from_function = {
        c["type"] for c in document["status"]["conditions"] if c["reason"] == "FromFunction"
    }
    assert from_function == {"UpToDate", "Responsive"}
