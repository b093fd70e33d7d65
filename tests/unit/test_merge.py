"""The merge rules as a table: each row is a case from the seeds or SPEC §5.3."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import pytest

from function.errors import MergeConflictError
from function.resolve import merge

Flavors = list[tuple[str, dict[str, Any]]]


@dataclass(frozen=True)
class MergeCase:
    """Flavors, in order, and what they merge into."""

    reason: str
    flavors: Flavors
    want: dict[str, Any]


@dataclass(frozen=True)
class ConflictCase:
    """Flavors, in order, that cannot merge, and the exact message."""

    reason: str
    flavors: Flavors
    message: str


@dataclass(frozen=True)
class OverlayCase:
    """A higher layer laid over a lower one: the higher always wins."""

    reason: str
    base: dict[str, Any]
    top: dict[str, Any]
    want: dict[str, Any]


MERGES: list[MergeCase] = [
    MergeCase(
        reason="lists append in flavor order (tolerations compose)",
        flavors=[
            (
                "gpu-tolerations",
                {
                    "tolerations": [
                        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
                    ]
                },
            ),
            (
                "spot-tolerations",
                {
                    "tolerations": [
                        {
                            "key": "cloud.google.com/gke-spot",
                            "operator": "Equal",
                            "value": "true",
                            "effect": "NoSchedule",
                        }
                    ]
                },
            ),
        ],
        want={
            "tolerations": [
                {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
                {
                    "key": "cloud.google.com/gke-spot",
                    "operator": "Equal",
                    "value": "true",
                    "effect": "NoSchedule",
                },
            ]
        },
    ),
    MergeCase(
        reason="maps merge distinct leaves at any depth (resources compose)",
        flavors=[
            ("cpu-flavor", {"resources": {"limits": {"cpu": "2"}}}),
            ("memory-flavor", {"resources": {"limits": {"memory": "4Gi"}}}),
        ],
        want={"resources": {"limits": {"cpu": "2", "memory": "4Gi"}}},
    ),
    MergeCase(
        reason="nodeSelector keys merge",
        flavors=[("a", {"nodeSelector": {"zone": "a"}}), ("b", {"nodeSelector": {"disk": "ssd"}})],
        want={"nodeSelector": {"zone": "a", "disk": "ssd"}},
    ),
    MergeCase(
        reason="scaling keys from different flavors merge",
        flavors=[
            ("a", {"scaling": {"minReplicaCount": 1}}),
            ("b", {"scaling": {"maxReplicaCount": 4}}),
        ],
        want={"scaling": {"minReplicaCount": 1, "maxReplicaCount": 4}},
    ),
    MergeCase(
        reason="scalars from different flavors on different fields coexist",
        flavors=[("a", {"image": "x:1"}), ("b", {"handler": "h.f"})],
        want={"image": "x:1", "handler": "h.f"},
    ),
    MergeCase(
        reason="env merges by name; an identical item appears once",
        flavors=[
            ("a", {"env": [{"name": "A", "value": "1"}, {"name": "SHARED", "value": "s"}]}),
            ("b", {"env": [{"name": "SHARED", "value": "s"}, {"name": "B", "value": "2"}]}),
        ],
        want={
            "env": [
                {"name": "A", "value": "1"},
                {"name": "SHARED", "value": "s"},
                {"name": "B", "value": "2"},
            ]
        },
    ),
    MergeCase(
        reason="volumeMounts merge by mountPath",
        flavors=[
            ("a", {"volumeMounts": [{"name": "m", "mountPath": "/m"}]}),
            (
                "b",
                {
                    "volumeMounts": [
                        {"name": "m", "mountPath": "/m"},
                        {"name": "n", "mountPath": "/n"},
                    ]
                },
            ),
        ],
        want={"volumeMounts": [{"name": "m", "mountPath": "/m"}, {"name": "n", "mountPath": "/n"}]},
    ),
    MergeCase(
        reason="secretRefs merge by secretName and their keys by envVar",
        flavors=[
            ("a", {"secretRefs": [{"secretName": "s", "keys": [{"key": "k1", "envVar": "A"}]}]}),
            (
                "b",
                {
                    "secretRefs": [
                        {"secretName": "s", "keys": [{"key": "k2", "envVar": "B"}]},
                        {"secretName": "t", "keys": [{"key": "k", "envVar": "C"}]},
                    ]
                },
            ),
        ],
        want={
            "secretRefs": [
                {
                    "secretName": "s",
                    "keys": [{"key": "k1", "envVar": "A"}, {"key": "k2", "envVar": "B"}],
                },
                {"secretName": "t", "keys": [{"key": "k", "envVar": "C"}]},
            ]
        },
    ),
    MergeCase(
        reason="stateProxy entries append by name",
        flavors=[
            ("s3-checkpoints", {"stateProxy": [{"name": "checkpoints", "mount": {"path": "/c"}}]}),
            ("redis-cache", {"stateProxy": [{"name": "cache", "mount": {"path": "/r"}}]}),
        ],
        want={
            "stateProxy": [
                {"name": "checkpoints", "mount": {"path": "/c"}},
                {"name": "cache", "mount": {"path": "/r"}},
            ]
        },
    ),
    MergeCase(
        reason="items without identity drop exact duplicates",
        flavors=[
            ("a", {"tolerations": [{"key": "k", "operator": "Exists"}]}),
            ("b", {"tolerations": [{"key": "k", "operator": "Exists"}]}),
        ],
        want={"tolerations": [{"key": "k", "operator": "Exists"}]},
    ),
    MergeCase(
        reason="resiliency policies merge by name, rules append",
        flavors=[
            (
                "a",
                {
                    "resiliency": {
                        "policies": {"p1": {"maxAttempts": 3}},
                        "rules": [{"errors": ["E1"], "policy": "p1"}],
                    }
                },
            ),
            (
                "b",
                {
                    "resiliency": {
                        "policies": {"p2": {"maxAttempts": 5}},
                        "rules": [{"errors": ["E2"], "policy": "p2"}],
                    }
                },
            ),
        ],
        want={
            "resiliency": {
                "policies": {"p1": {"maxAttempts": 3}, "p2": {"maxAttempts": 5}},
                "rules": [{"errors": ["E1"], "policy": "p1"}, {"errors": ["E2"], "policy": "p2"}],
            }
        },
    ),
    MergeCase(
        reason="an empty flavor changes nothing",
        flavors=[("a", {"scaling": {"minReplicaCount": 1}}), ("empty", {})],
        want={"scaling": {"minReplicaCount": 1}},
    ),
]

CONFLICTS: list[ConflictCase] = [
    ConflictCase(
        reason="the seeds' conflict example",
        flavors=[
            ("flavor-a", {"scaling": {"minReplicaCount": 1}}),
            ("flavor-b", {"scaling": {"minReplicaCount": 5}}),
        ],
        message='flavor merge conflict: flavors "flavor-a" and "flavor-b" conflict on scaling.minReplicaCount',
    ),
    ConflictCase(
        reason="a scalar set twice conflicts even with equal values",
        flavors=[("a", {"replicas": 2}), ("b", {"replicas": 2})],
        message='flavor merge conflict: flavors "a" and "b" conflict on replicas',
    ),
    ConflictCase(
        reason="scalars of different types conflict as scalars",
        flavors=[("a", {"image": "x"}), ("b", {"image": 3})],
        message='flavor merge conflict: flavors "a" and "b" conflict on image',
    ),
    ConflictCase(
        reason="deep resource leaves conflict with their full path",
        flavors=[
            ("a", {"resources": {"limits": {"cpu": "1"}}}),
            ("b", {"resources": {"limits": {"cpu": "2"}}}),
        ],
        message='flavor merge conflict: flavors "a" and "b" conflict on resources.limits.cpu',
    ),
    ConflictCase(
        reason="the same env name with a different value",
        flavors=[
            ("flavor-a", {"env": [{"name": "MODEL_PATH", "value": "/a"}]}),
            ("flavor-b", {"env": [{"name": "MODEL_PATH", "value": "/b"}]}),
        ],
        message='flavor merge conflict: flavors "flavor-a" and "flavor-b" conflict on env[MODEL_PATH]',
    ),
    ConflictCase(
        reason="the same secret key's env var mapped twice",
        flavors=[
            ("a", {"secretRefs": [{"secretName": "s", "keys": [{"key": "k1", "envVar": "A"}]}]}),
            ("b", {"secretRefs": [{"secretName": "s", "keys": [{"key": "k2", "envVar": "A"}]}]}),
        ],
        message='flavor merge conflict: flavors "a" and "b" conflict on secretRefs[s].keys[A]',
    ),
    ConflictCase(
        reason="map against list",
        flavors=[("flavor-a", {"scaling": {"minReplicaCount": 1}}), ("flavor-b", {"scaling": [1]})],
        message='flavor merge conflict: flavors "flavor-a" and "flavor-b" have conflicting types for key '
        '"scaling": existing is a map, new is a list',
    ),
    ConflictCase(
        reason="list against map",
        flavors=[("a", {"tolerations": []}), ("b", {"tolerations": {"key": "x"}})],
        message='flavor merge conflict: flavors "a" and "b" have conflicting types for key '
        '"tolerations": existing is a list, new is a map',
    ),
    ConflictCase(
        reason="map against scalar, nested",
        flavors=[
            ("a", {"resources": {"limits": {"cpu": "1"}}}),
            ("b", {"resources": {"limits": "big"}}),
        ],
        message='flavor merge conflict: flavors "a" and "b" have conflicting types for key '
        '"resources.limits": existing is a map, new is a string',
    ),
    ConflictCase(
        reason="the clash names the flavor that set the leaf, not an earlier one",
        flavors=[
            ("a", {"scaling": {"maxReplicaCount": 4}}),
            ("b", {"scaling": {"minReplicaCount": 1}}),
            ("c", {"scaling": {"minReplicaCount": 2}}),
        ],
        message='flavor merge conflict: flavors "b" and "c" conflict on scaling.minReplicaCount',
    ),
]


@pytest.mark.parametrize("case", MERGES, ids=[c.reason for c in MERGES])
def test_merge_table(case: MergeCase) -> None:
    assert merge.merge_flavors(case.flavors) == case.want, case.reason


@pytest.mark.parametrize("case", CONFLICTS, ids=[c.reason for c in CONFLICTS])
def test_conflict_table(case: ConflictCase) -> None:
    with pytest.raises(MergeConflictError) as raised:
        merge.merge_flavors(case.flavors)
    assert str(raised.value) == case.message, case.reason


def test_merging_neither_mutates_nor_aliases_the_inputs() -> None:
    first = {"env": [{"name": "A", "value": "1"}], "resources": {"limits": {"cpu": "1"}}}
    second = {"env": [{"name": "B", "value": "2"}], "resources": {"limits": {"memory": "1Gi"}}}
    before = copy.deepcopy((first, second))
    merged = merge.merge_flavors([("a", first), ("b", second)])
    merged["env"][1]["value"] = "changed"
    merged["resources"]["limits"]["cpu"] = "changed"
    assert (first, second) == before


OVERLAYS: list[OverlayCase] = [
    OverlayCase(
        reason="the actor's leaf replaces the flavor's and keeps its siblings",
        base={"scaling": {"maxReplicaCount": 50, "queueLength": 10}},
        top={"scaling": {"maxReplicaCount": 20}},
        want={"scaling": {"maxReplicaCount": 20, "queueLength": 10}},
    ),
    OverlayCase(
        reason="an identity item replaces the flavor's item, others append",
        base={"env": [{"name": "A", "value": "flavor"}, {"name": "B", "value": "flavor"}]},
        top={"env": [{"name": "A", "value": "actor"}, {"name": "C", "value": "actor"}]},
        want={
            "env": [
                {"name": "A", "value": "actor"},
                {"name": "B", "value": "flavor"},
                {"name": "C", "value": "actor"},
            ]
        },
    ),
    OverlayCase(
        reason="the actor's resiliency rules come first",
        base={"resiliency": {"rules": [{"errors": ["E"], "policy": "f"}]}},
        top={"resiliency": {"rules": [{"errors": ["R"], "policy": "a"}]}},
        want={
            "resiliency": {
                "rules": [{"errors": ["R"], "policy": "a"}, {"errors": ["E"], "policy": "f"}]
            }
        },
    ),
    OverlayCase(
        reason="tolerations from the actor join the flavors'",
        base={"tolerations": [{"key": "f"}]},
        top={"tolerations": [{"key": "a"}, {"key": "f"}]},
        want={"tolerations": [{"key": "f"}, {"key": "a"}]},
    ),
    OverlayCase(
        reason="a type change in the actor simply wins",
        base={"nodeSelector": {"zone": "a"}},
        top={"nodeSelector": "oops"},
        want={"nodeSelector": "oops"},
    ),
    OverlayCase(
        reason="a flavor's scalar beats a default",
        base={"imagePullPolicy": "IfNotPresent"},
        top={"imagePullPolicy": "Always"},
        want={"imagePullPolicy": "Always"},
    ),
]


@pytest.mark.parametrize("case", OVERLAYS, ids=[c.reason for c in OVERLAYS])
def test_overlay_table(case: OverlayCase) -> None:
    assert merge.overlay(case.base, case.top) == case.want, case.reason


def test_layered_is_the_flavor_merge_overlaid_on_defaults_then_the_actor() -> None:
    defaults = {"scaling": {"queueLength": 5, "maxReplicaCount": 10}, "replicas": 1}
    flavors = [
        ("big", {"scaling": {"maxReplicaCount": 50}, "env": [{"name": "A", "value": "f"}]}),
        ("small", {"scaling": {"maxReplicaCount": 5}, "volumes": [{"name": "v"}]}),
    ]
    # The actor settles the clash on scaling.maxReplicaCount.
    actor = {"scaling": {"queueLength": 1, "maxReplicaCount": 7}, "env": [{"name": "A"}]}
    before = copy.deepcopy((defaults, flavors, actor))
    settled = merge.merge_flavors(flavors, settled=actor)
    assert merge.layered(defaults, flavors, actor) == merge.overlay(
        merge.overlay(defaults, settled), actor
    )
    assert (defaults, flavors, actor) == before


def test_layered_reports_a_clash_the_actor_does_not_settle() -> None:
    flavors = [("big", {"replicas": 5}), ("small", {"replicas": 1})]
    with pytest.raises(MergeConflictError, match='flavors "big" and "small" conflict on replicas'):
        merge.layered({"replicas": 1}, flavors, {})


def test_a_conflict_on_two_keys_names_the_first_in_sorted_order_whatever_order_they_came_in() -> (
    None
):
    # Flavors arrive as protobuf Structs, whose map order differs per process.
    first = {"scaling": {"minReplicaCount": 1, "maxReplicaCount": 5}}
    said = set()
    for second in (
        {"scaling": {"minReplicaCount": 2, "maxReplicaCount": 6}},
        {"scaling": {"maxReplicaCount": 6, "minReplicaCount": 2}},
    ):
        with pytest.raises(MergeConflictError) as raised:
            merge.merge_flavors([("a", first), ("b", second)])
        said.add(raised.value.path)
    assert said == {"scaling.maxReplicaCount"}
