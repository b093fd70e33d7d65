"""A transient observed state never changes a running workload (SPEC: safe over time).

A provider restart or a lost status leaves Crossplane observing composed resources
without their status for a while. Whatever is rendered then must not roll the
actor's pods: the Deployment's pod template stays byte-identical through
ready → status lost → ready, for every transport in both XR forms.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
import yaml

from function.models.observed import is_wrapped
from tests.golden.cases import CASES, Case

READY_CASES = [case for case in CASES if case.name.endswith("-ready") and case.observed]


def pod_template(documents: list[dict[str, Any]]) -> str:
    """The rendered Deployment's pod template, as YAML."""
    for document in documents:
        manifest = document["spec"]["forProvider"]["manifest"] if is_wrapped(document) else document
        if manifest.get("kind") == "Deployment":
            return yaml.safe_dump(manifest["spec"]["template"], sort_keys=True)
    raise AssertionError("no Deployment was rendered")


def test_every_transport_and_form_is_covered() -> None:
    assert {c.name for c in READY_CASES} >= {
        "text-processor-ready",
        "image-enhancer-ready",
        "v2-image-enhancer-ready",
        "rabbitmq-ready",
        "v2-rabbitmq-ready",
        "pubsub-ready",
        "v2-pubsub-ready",
    }


@pytest.mark.parametrize("case", READY_CASES, ids=[c.name for c in READY_CASES])
def test_a_lost_status_leaves_the_pod_template_as_it_was(case: Case) -> None:
    lost = dataclasses.replace(case, status_lost=True)
    templates = [pod_template(c.render()) for c in (case, lost, case)]
    assert templates[1] == templates[0], "the pods would roll when the status is lost"
    assert templates[2] == templates[0], "the pods would roll when the status comes back"
