"""The merge rules as a table: each row is a case from the seeds or SPEC §5.3."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from function import merge
from function.errors import MergeConflictError

# (reason, flavors in order, expected merge)
MERGES: list[tuple[str, list[tuple[str, dict[str, Any]]], dict[str, Any]]] = [
    (
        "lists append in flavor order (tolerations compose)",
        [
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
        {
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
    (
        "maps merge distinct leaves at any depth (resources compose)",
        [
            ("cpu-flavor", {"resources": {"limits": {"cpu": "2"}}}),
            ("memory-flavor", {"resources": {"limits": {"memory": "4Gi"}}}),
        ],
        {"resources": {"limits": {"cpu": "2", "memory": "4Gi"}}},
    ),
    (
        "nodeSelector keys merge",
        [("a", {"nodeSelector": {"zone": "a"}}), ("b", {"nodeSelector": {"disk": "ssd"}})],
        {"nodeSelector": {"zone": "a", "disk": "ssd"}},
    ),
    (
        "scaling keys from different flavors merge",
        [("a", {"scaling": {"minReplicaCount": 1}}), ("b", {"scaling": {"maxReplicaCount": 4}})],
        {"scaling": {"minReplicaCount": 1, "maxReplicaCount": 4}},
    ),
    (
        "scalars from different flavors on different fields coexist",
        [("a", {"image": "x:1"}), ("b", {"handler": "h.f"})],
        {"image": "x:1", "handler": "h.f"},
    ),
    (
        "env merges by name; an identical item appears once",
        [
            ("a", {"env": [{"name": "A", "value": "1"}, {"name": "SHARED", "value": "s"}]}),
            ("b", {"env": [{"name": "SHARED", "value": "s"}, {"name": "B", "value": "2"}]}),
        ],
        {
            "env": [
                {"name": "A", "value": "1"},
                {"name": "SHARED", "value": "s"},
                {"name": "B", "value": "2"},
            ]
        },
    ),
    (
        "volumeMounts merge by mountPath",
        [
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
        {"volumeMounts": [{"name": "m", "mountPath": "/m"}, {"name": "n", "mountPath": "/n"}]},
    ),
    (
        "secretRefs merge by secretName and their keys by envVar",
        [
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
        {
            "secretRefs": [
                {
                    "secretName": "s",
                    "keys": [{"key": "k1", "envVar": "A"}, {"key": "k2", "envVar": "B"}],
                },
                {"secretName": "t", "keys": [{"key": "k", "envVar": "C"}]},
            ]
        },
    ),
    (
        "stateProxy entries append by name",
        [
            ("s3-checkpoints", {"stateProxy": [{"name": "checkpoints", "mount": {"path": "/c"}}]}),
            ("redis-cache", {"stateProxy": [{"name": "cache", "mount": {"path": "/r"}}]}),
        ],
        {
            "stateProxy": [
                {"name": "checkpoints", "mount": {"path": "/c"}},
                {"name": "cache", "mount": {"path": "/r"}},
            ]
        },
    ),
    (
        "items without identity drop exact duplicates",
        [
            ("a", {"tolerations": [{"key": "k", "operator": "Exists"}]}),
            ("b", {"tolerations": [{"key": "k", "operator": "Exists"}]}),
        ],
        {"tolerations": [{"key": "k", "operator": "Exists"}]},
    ),
    (
        "resiliency policies merge by name, rules append",
        [
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
        {
            "resiliency": {
                "policies": {"p1": {"maxAttempts": 3}, "p2": {"maxAttempts": 5}},
                "rules": [{"errors": ["E1"], "policy": "p1"}, {"errors": ["E2"], "policy": "p2"}],
            }
        },
    ),
    (
        "an empty flavor changes nothing",
        [("a", {"scaling": {"minReplicaCount": 1}}), ("empty", {})],
        {"scaling": {"minReplicaCount": 1}},
    ),
]

# (reason, flavors in order, exact message)
CONFLICTS: list[tuple[str, list[tuple[str, dict[str, Any]]], str]] = [
    (
        "the seeds' conflict example",
        [
            ("flavor-a", {"scaling": {"minReplicaCount": 1}}),
            ("flavor-b", {"scaling": {"minReplicaCount": 5}}),
        ],
        'flavor merge conflict: flavors "flavor-a" and "flavor-b" conflict on scaling.minReplicaCount',
    ),
    (
        "a scalar set twice conflicts even with equal values",
        [("a", {"replicas": 2}), ("b", {"replicas": 2})],
        'flavor merge conflict: flavors "a" and "b" conflict on replicas',
    ),
    (
        "scalars of different types conflict as scalars",
        [("a", {"image": "x"}), ("b", {"image": 3})],
        'flavor merge conflict: flavors "a" and "b" conflict on image',
    ),
    (
        "deep resource leaves conflict with their full path",
        [
            ("a", {"resources": {"limits": {"cpu": "1"}}}),
            ("b", {"resources": {"limits": {"cpu": "2"}}}),
        ],
        'flavor merge conflict: flavors "a" and "b" conflict on resources.limits.cpu',
    ),
    (
        "the same env name with a different value",
        [
            ("flavor-a", {"env": [{"name": "MODEL_PATH", "value": "/a"}]}),
            ("flavor-b", {"env": [{"name": "MODEL_PATH", "value": "/b"}]}),
        ],
        'flavor merge conflict: flavors "flavor-a" and "flavor-b" conflict on env[MODEL_PATH]',
    ),
    (
        "the same secret key's env var mapped twice",
        [
            ("a", {"secretRefs": [{"secretName": "s", "keys": [{"key": "k1", "envVar": "A"}]}]}),
            ("b", {"secretRefs": [{"secretName": "s", "keys": [{"key": "k2", "envVar": "A"}]}]}),
        ],
        'flavor merge conflict: flavors "a" and "b" conflict on secretRefs[s].keys[A]',
    ),
    (
        "map against list",
        [("flavor-a", {"scaling": {"minReplicaCount": 1}}), ("flavor-b", {"scaling": [1]})],
        'flavor merge conflict: flavors "flavor-a" and "flavor-b" have conflicting types for key '
        '"scaling": existing is a map, new is a list',
    ),
    (
        "list against map",
        [("a", {"tolerations": []}), ("b", {"tolerations": {"key": "x"}})],
        'flavor merge conflict: flavors "a" and "b" have conflicting types for key '
        '"tolerations": existing is a list, new is a map',
    ),
    (
        "map against scalar, nested",
        [("a", {"resources": {"limits": {"cpu": "1"}}}), ("b", {"resources": {"limits": "big"}})],
        'flavor merge conflict: flavors "a" and "b" have conflicting types for key '
        '"resources.limits": existing is a map, new is a string',
    ),
    (
        "the clash names the flavor that set the leaf, not an earlier one",
        [
            ("a", {"scaling": {"maxReplicaCount": 4}}),
            ("b", {"scaling": {"minReplicaCount": 1}}),
            ("c", {"scaling": {"minReplicaCount": 2}}),
        ],
        'flavor merge conflict: flavors "b" and "c" conflict on scaling.minReplicaCount',
    ),
]


@pytest.mark.parametrize(("reason", "flavors", "expected"), MERGES, ids=[m[0] for m in MERGES])
def test_merge_table(
    reason: str, flavors: list[tuple[str, dict[str, Any]]], expected: dict[str, Any]
) -> None:
    assert merge.merge_flavors(flavors) == expected, reason


@pytest.mark.parametrize(("reason", "flavors", "message"), CONFLICTS, ids=[c[0] for c in CONFLICTS])
def test_conflict_table(
    reason: str, flavors: list[tuple[str, dict[str, Any]]], message: str
) -> None:
    with pytest.raises(MergeConflictError) as raised:
        merge.merge_flavors(flavors)
    assert str(raised.value) == message, reason


def test_merging_neither_mutates_nor_aliases_the_inputs() -> None:
    first = {"env": [{"name": "A", "value": "1"}], "resources": {"limits": {"cpu": "1"}}}
    second = {"env": [{"name": "B", "value": "2"}], "resources": {"limits": {"memory": "1Gi"}}}
    before = copy.deepcopy((first, second))
    merged = merge.merge_flavors([("a", first), ("b", second)])
    merged["env"][1]["value"] = "changed"
    merged["resources"]["limits"]["cpu"] = "changed"
    assert (first, second) == before


# (reason, base, top, expected) for the overlay: the higher layer always wins.
OVERLAYS: list[tuple[str, dict[str, Any], dict[str, Any], dict[str, Any]]] = [
    (
        "the actor's leaf replaces the flavor's and keeps its siblings",
        {"scaling": {"maxReplicaCount": 50, "queueLength": 10}},
        {"scaling": {"maxReplicaCount": 20}},
        {"scaling": {"maxReplicaCount": 20, "queueLength": 10}},
    ),
    (
        "an identity item replaces the flavor's item, others append",
        {"env": [{"name": "A", "value": "flavor"}, {"name": "B", "value": "flavor"}]},
        {"env": [{"name": "A", "value": "actor"}, {"name": "C", "value": "actor"}]},
        {
            "env": [
                {"name": "A", "value": "actor"},
                {"name": "B", "value": "flavor"},
                {"name": "C", "value": "actor"},
            ]
        },
    ),
    (
        "the actor's resiliency rules come first",
        {"resiliency": {"rules": [{"errors": ["E"], "policy": "f"}]}},
        {"resiliency": {"rules": [{"errors": ["R"], "policy": "a"}]}},
        {
            "resiliency": {
                "rules": [{"errors": ["R"], "policy": "a"}, {"errors": ["E"], "policy": "f"}]
            }
        },
    ),
    (
        "tolerations from the actor join the flavors'",
        {"tolerations": [{"key": "f"}]},
        {"tolerations": [{"key": "a"}, {"key": "f"}]},
        {"tolerations": [{"key": "f"}, {"key": "a"}]},
    ),
    (
        "a type change in the actor simply wins",
        {"nodeSelector": {"zone": "a"}},
        {"nodeSelector": "oops"},
        {"nodeSelector": "oops"},
    ),
    (
        "a flavor's scalar beats a default",
        {"imagePullPolicy": "IfNotPresent"},
        {"imagePullPolicy": "Always"},
        {"imagePullPolicy": "Always"},
    ),
]


@pytest.mark.parametrize(
    ("reason", "base", "top", "expected"), OVERLAYS, ids=[o[0] for o in OVERLAYS]
)
def test_overlay_table(
    reason: str, base: dict[str, Any], top: dict[str, Any], expected: dict[str, Any]
) -> None:
    assert merge.overlay(base, top) == expected, reason


def test_layered_is_overlay_applied_in_order() -> None:
    defaults = {"scaling": {"queueLength": 5, "maxReplicaCount": 10}, "replicas": 1}
    flavors = {"scaling": {"maxReplicaCount": 50}, "env": [{"name": "A", "value": "f"}]}
    actor = {"scaling": {"queueLength": 1}, "env": [{"name": "A", "value": "a"}]}
    before = copy.deepcopy((defaults, flavors, actor))
    assert merge.layered(defaults, flavors, actor) == merge.overlay(
        merge.overlay(defaults, flavors), actor
    )
    assert (defaults, flavors, actor) == before
