"""The fleet-rig phase at 20 actors: four sides composed by Crossplane core, and the edit.

Nothing is timed: each side must compose every actor, Crossplane's count of calls must
be what function-asya answered, the flavor edit must reach the actors that list the
flavor and only them (on v2.4, which watches it, and v2.3.4), and the report must judge
every target.
"""

from __future__ import annotations

from typing import Any

import pytest

from bench import fleet_measure, fleet_report, fleet_rig

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("go_functions"), pytest.mark.timeout(1200)]
ACTORS = 20


@pytest.fixture(scope="module")
def measured() -> dict[str, Any]:
    if reason := fleet_rig.missing():
        pytest.skip(reason)
    return fleet_measure.run(ACTORS, poll="1m")


def test_every_side_composes_the_fleet_calling_each_of_its_functions(
    measured: dict[str, Any],
) -> None:
    every = fleet_rig.sides()
    for name in (*fleet_rig.SIDES, "v2.3", "replicas"):
        side = every[name if name in every else fleet_rig.OURS]
        numbers = measured[name]
        assert numbers["wall_s"] > 0
        for function in side.functions:
            # At least one call a reconcile, and every actor is reconciled.
            assert numbers[f"calls {function}"] >= 1


def test_what_crossplane_counts_is_what_function_asya_answered(measured: dict[str, Any]) -> None:
    for name in (fleet_rig.OURS, fleet_rig.UNFLAVORED, "v2.3", "replicas"):
        numbers = measured[name]
        answered = numbers["hits"] + numbers["misses"]
        assert answered == round(numbers["calls function-asya"] * ACTORS)
        assert numbers["rss_mib"] > 0


@pytest.mark.parametrize("edit", ["edit", "edit v2.3", "edit replicas"])
def test_the_flavor_edit_reaches_the_actors_that_list_it_and_no_other(
    measured: dict[str, Any], edit: str
) -> None:
    numbers = measured[edit]
    assert numbers["affected"] == ACTORS // 2
    # Every affected actor had its answer computed anew (its Deployment carries the
    # env var: fleet_measure checks each one); no other actor had one computed.
    assert numbers["computed_affected"] >= numbers["affected"]
    assert numbers["computed_others"] == 0
    assert numbers["misses"] == numbers["computed_affected"]
    # Rendered once, then once with the edit: no answer flapped, replicas or not.
    assert (numbers["generation_affected"], numbers["generation_others"]) == (2, 1)


def test_two_replicas_share_the_fleet(measured: dict[str, Any]) -> None:
    numbers = measured["replicas"]
    shares = [v for k, v in numbers.items() if k.startswith("cpu_ms ")]
    assert len(shares) == 2
    assert all(share > 0 for share in shares)  # Crossplane called both


def test_the_report_judges_every_target(measured: dict[str, Any]) -> None:
    rows, lines = fleet_report.tables(measured, ACTORS)
    verdicts = {row[0]: row[5] for row in rows if row[5]}
    assert len(verdicts) == 5  # wall, function CPU, core CPU, RSS, the edit on v2.4
    assert set(verdicts.values()) <= {"met", "**missed**"}
    assert sum(line.startswith("|") for line in lines) == 2 + 7 + 2 + 3
    assert lines[-1].startswith("Two replicas behind one name")
