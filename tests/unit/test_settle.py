"""The actor settles a conflict between flavors by setting the leaf itself (seed 002, SPEC §5.4)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from function.errors import MergeConflictError
from function.models.spec import as_data
from tests.unit.test_flavors import flavor, resolve


@dataclass(frozen=True)
class SettleCase:
    """Two flavors that disagree, and the actor's own value for what they disagree on."""

    reason: str
    first: dict[str, Any]
    second: dict[str, Any]
    actor: dict[str, Any]
    path: tuple[str, ...]
    want: Any


SETTLED = [
    SettleCase(
        reason="a map leaf both flavors set",
        first={"scaling": {"minReplicaCount": 1}},
        second={"scaling": {"minReplicaCount": 2}},
        actor={"scaling": {"minReplicaCount": 3}},
        path=("scaling", "minReplicaCount"),
        want=3,
    ),
    SettleCase(
        reason="a scalar both flavors set",
        first={"image": "a:1"},
        second={"image": "b:1"},
        actor={"image": "mine:1"},
        path=("image",),
        want="mine:1",
    ),
    SettleCase(
        reason="a nested Kubernetes leaf both flavors set",
        first={"resources": {"limits": {"memory": "1Gi"}}},
        second={"resources": {"limits": {"memory": "2Gi"}}},
        actor={"resources": {"limits": {"memory": "4Gi"}}},
        path=("resources", "limits", "memory"),
        want="4Gi",
    ),
    SettleCase(
        reason="an env item both flavors define differently",
        first={"env": [{"name": "MODEL", "value": "a"}]},
        second={"env": [{"name": "MODEL", "value": "b"}]},
        actor={"env": [{"name": "MODEL", "value": "mine"}]},
        path=("env",),
        want=[{"name": "MODEL", "value": "mine"}],
    ),
    SettleCase(
        reason="a key both flavors give different types",
        first={"nodeSelector": {"zone": "a"}},
        second={"nodeSelector": {"zone": {"nested": "b"}}},
        actor={"nodeSelector": {"zone": "mine"}},
        path=("nodeSelector", "zone"),
        want="mine",
    ),
]


@pytest.mark.parametrize("case", SETTLED, ids=[c.reason for c in SETTLED])
def test_the_actor_settles_what_two_flavors_disagree_on(case: SettleCase) -> None:
    data = as_data(
        resolve(case.actor, flavor("fast", case.first), flavor("fine", case.second)).spec
    )
    for key in case.path:
        data = data[key]
    assert data == case.want, case.reason


def test_a_conflict_on_a_leaf_the_actor_does_not_set_still_fails_exactly() -> None:
    with pytest.raises(MergeConflictError) as raised:
        resolve(
            {"scaling": {"maxReplicaCount": 20}},
            flavor("fast", {"scaling": {"minReplicaCount": 1}}),
            flavor("fine", {"scaling": {"minReplicaCount": 2}}),
        )
    assert str(raised.value) == (
        'flavor merge conflict: flavors "fast" and "fine" conflict on scaling.minReplicaCount'
    )


def test_settling_one_leaf_leaves_the_flavors_other_leaves_merged() -> None:
    data = as_data(
        resolve(
            {"scaling": {"minReplicaCount": 3}},
            flavor("fast", {"scaling": {"minReplicaCount": 1, "queueLength": 7}}),
            flavor("fine", {"scaling": {"minReplicaCount": 2, "maxReplicaCount": 9}}),
        ).spec
    )
    assert (data["scaling"]["minReplicaCount"], data["scaling"]["queueLength"]) == (3, 7)
    assert data["scaling"]["maxReplicaCount"] == 9
