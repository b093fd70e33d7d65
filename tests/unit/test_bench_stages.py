"""The per-stage table of BENCHMARKS.md times functions by name: they must exist and run."""

from __future__ import annotations

from bench import stages
from function.codec import structs
from function.serving import question


def test_every_stage_of_the_table_is_timed_and_put_back_afterwards() -> None:
    originals = (question.of_tag, structs.encode)
    medians = stages.measure(3, heavy=False)
    labels = {label for _, _, label in stages.STAGES}
    assert set(medians) == labels | {"receive the request", "total"}
    # Each stage ran inside the call (a renamed function would leave its stage at zero).
    assert all(medians[label] > 0 for label in labels - {"write, without the Struct writes"})
    assert medians["total"] > medians["write Structs (desired XR + 5 resources)"]
    assert (question.of_tag, structs.encode) == originals
