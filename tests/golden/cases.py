"""Every example the project ships, as a render case; a few of them kept whole as golden files."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from function.cli.render import command, files, release
from function.cli.render.inputs import RenderInputs
from function.cli.render.pipeline import Outcome
from tests.support import ROOT

EXAMPLES = ROOT / "examples"
STAGES = ("created", "queue-creating", "queue-no-url", "queue-url", "ready", "napping")
# The cluster's flavor library and the teams' namespace flavors.
# And the platform's dead-letter queues, which an actor's redrive points at.
LIBRARY = ("examples/flavors", "examples/platform")
TEAM_FLAVORS = (*LIBRARY, "examples/team-flavors")
# The life stages that differ for the other transports.
# Why an actor's pods do not run: a file of its Pods per reason (examples/troubleshooting).
TROUBLES = ("crash-loop", "oom-killed", "image-pull", "missing-secret", "unschedulable")
TRANSPORT_STAGES = {
    "rabbitmq": ("created", "ready", "napping"),
    "pubsub": ("created", "subscription-ready", "ready", "napping"),
}


@dataclass(frozen=True)
class Case:
    """One render: an XR, its composition, what was observed, the flavors on offer."""

    name: str
    xr: str
    composition: str = "examples/composition.yaml"
    observed: str | None = None
    xrd: str = "xrd/xasyncactors.asya.sh.yaml"
    required: tuple[str, ...] = LIBRARY
    # Observed as after a provider restart: every composed resource without its status.
    status_lost: bool = False

    def render(self) -> list[dict[str, Any]]:
        """Render through function-asya over a real (in-process) gRPC server.

        In crossplane render v2.2's shape: it prints the desired XR with the spec
        the function hands on, which these files exist to review.
        """
        return self.run()[0]

    def run(self) -> tuple[list[dict[str, Any]], Outcome]:
        """The documents render prints, and the pipeline's outcome behind them."""
        inputs = RenderInputs(
            files.load_composite(str(ROOT / self.xr)),
            files.load_composition(str(ROOT / self.composition)),
            files.load_functions(str(EXAMPLES / "functions.yaml")),
            self._observed(),
            [doc for path in self.required for doc in files.load(str(ROOT / path))],
            timeout=30,
            follow=release.V2_2,
        )
        return asyncio.run(command.render_documents(inputs, include_results=True))

    def _observed(self) -> list[files.Document]:
        documents = files.load_observed(str(ROOT / self.observed)) if self.observed else []
        if self.status_lost:
            for document in documents:
                document.body.pop("status", None)
        return documents


def observed_file(example: str, stage: str) -> str | None:
    """An example's observed resources at a life stage.

    A v2 actor just created has observed nothing, and has no file for it: `crossplane
    render` reads a file of comments alone as one empty object, which it refuses
    beside a namespaced XR ("not in the same namespace as the XR").
    """
    if stage == "created" and example.startswith("v2/"):
        return None
    return f"examples/{example}/observed/{stage}.yaml"


CASES = (
    [
        Case(
            f"{actor}-{stage}",
            f"examples/{actor}/xr.yaml",
            observed=f"examples/{actor}/observed/{stage}.yaml",
        )
        for actor in ("text-processor", "image-enhancer")
        for stage in STAGES
    ]
    + [
        Case(
            f"flavored-{path.stem}",
            f"examples/flavored/{path.stem}.yaml",
            composition="compositions/asyncactor-sqs.yaml",
            required=TEAM_FLAVORS if path.stem == "team-flavor" else LIBRARY,
        )
        for path in sorted((EXAMPLES / "flavored").glob("*.yaml"))
        if path.stem not in {"conflict", "missing-flavor", "ambiguous"}
    ]
    + [
        Case(
            f"v2-image-enhancer-{stage}",
            "examples/v2/image-enhancer/xr.yaml",
            composition="examples/v2/composition.yaml",
            observed=observed_file("v2/image-enhancer", stage),
            xrd="xrd/asyncactors.asya.sh.v2.yaml",
        )
        for stage in STAGES
    ]
    + [
        Case(
            "v2-team-flavor",
            "examples/v2/team-flavor/xr.yaml",
            composition="examples/v2/composition.yaml",
            xrd="xrd/asyncactors.asya.sh.v2.yaml",
            required=TEAM_FLAVORS,
        )
    ]
    + [
        Case(
            f"{prefix}{transport}-{stage}",
            f"examples/{folder}{transport}/xr.yaml",
            composition=composition,
            observed=observed_file(f"{folder}{transport}", stage),
            xrd=xrd,
        )
        for prefix, folder, xrd in (
            ("", "", "xrd/xasyncactors.asya.sh.yaml"),
            ("v2-", "v2/", "xrd/asyncactors.asya.sh.v2.yaml"),
        )
        for transport, composition, stages in (
            (
                "rabbitmq",
                f"compositions/asyncactor-rabbitmq{'-namespaced' if folder else ''}.yaml",
                TRANSPORT_STAGES["rabbitmq"],
            ),
            ("pubsub", f"examples/{folder}pubsub/composition.yaml", TRANSPORT_STAGES["pubsub"]),
        )
        for stage in stages
    ]
    + [
        Case(
            f"{prefix}troubleshooting-{trouble}",
            f"examples/{folder}troubleshooting/xr.yaml",
            composition=composition,
            observed=f"examples/{folder}troubleshooting/observed.yaml",
            xrd=xrd,
            required=(*LIBRARY, f"examples/troubleshooting/pods/{trouble}.yaml"),
        )
        for prefix, folder, composition, xrd in (
            ("", "", "examples/composition.yaml", "xrd/xasyncactors.asya.sh.yaml"),
            ("v2-", "v2/", "examples/v2/composition.yaml", "xrd/asyncactors.asya.sh.v2.yaml"),
        )
        for trouble in TROUBLES
    ]
)

# The cases whose whole output is a golden file in want/: each transport in each XR
# form, and the seeds' examples (the text processor, GPU checkpoints, a team's
# namespace flavor). Every case's life stage is a row of stages.py.
FULL = (
    "text-processor-ready",
    "v2-image-enhancer-ready",
    "rabbitmq-ready",
    "v2-rabbitmq-ready",
    "pubsub-ready",
    "v2-pubsub-ready",
    "flavored-gpu-checkpoints",
    "v2-team-flavor",
)
