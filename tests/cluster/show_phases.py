"""Write docs/status.md's `kubectl get asyncactors` block from a real rig, one actor per phase.

`make generate` runs it when the rig's tools are built (`make e2e-tools`): a v2 control
plane with KEDA, kube-scheduler, kwok and the SQS emulator (tests/cluster/world.py), and
what the API server's Table answer holds for each actor, as `kubectl get` prints it. The
AGE column is left out: it differs on every run.
"""

from __future__ import annotations

import functools
import re
import sys

from tests import support
from tests.cluster import life, rig
from tests.cluster.crossplane import API, NAMESPACE
from tests.cluster.world import World, living

DOC = support.ROOT / "docs" / "status.md"
BLOCK = re.compile(r"(<!-- phases: begin -->\n```text\n).*?(```\n<!-- phases: end -->)", re.S)
SKIPPED = {"age"}


def _table(world: World) -> str:
    """The rows as kubectl prints them: upper-case headers, columns two spaces apart at least."""
    answer = world.kube.request(
        "GET",
        world.kube.path(API, "AsyncActor", NAMESPACE),
        accept="application/json;as=Table;v=v1;g=meta.k8s.io",
    )
    columns = [
        (i, c["name"])
        for i, c in enumerate(answer["columnDefinitions"])
        if c.get("priority", 0) == 0 and c["name"].lower() not in SKIPPED
    ]
    rows = sorted(answer["rows"], key=lambda row: row["cells"][0])
    cells = [[name.upper() for _, name in columns]]
    cells += [[str(row["cells"][i]) for i, _ in columns] for row in rows]
    widths = [max(len(line[k]) for line in cells) for k in range(len(columns))]
    return "".join(
        "   ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip()
        + "\n"
        for line in cells
    )


def _live(world: World) -> None:
    """One actor in each phase."""
    world.create("napper", flavors=["quick-nap"])
    world.create("worker", scaling={"minReplicaCount": 1})
    world.create("crasher", image="rig.local/crash-loop:1", scaling={"minReplicaCount": 1})
    world.create("placer", flavors=["gpu-a100"], scaling={"minReplicaCount": 1})
    world.create("pinned", scaling={"minReplicaCount": 1})
    for name, phase in (
        ("napper", "Napping"),
        ("worker", "Ready"),
        ("crasher", "Degraded"),
        ("placer", "Degraded"),
        ("pinned", "Ready"),
    ):
        world.phases(name, phase, timeout=300)
    scale = world.kube.path(API, "AsyncActor", NAMESPACE, "pinned") + "/scale"
    merge = "application/merge-patch+json"
    world.kube.request("PATCH", scale, {"spec": {"replicas": 0}}, content_type=merge)
    world.phases("pinned", "Paused", timeout=300)
    # With the provider's stand-in stopped, a new actor's queue never gets its URL.
    world.queues.stop()
    world.create("newcomer")
    world.phases("newcomer", "Creating")
    # Each row as it settles, so that the table is the same on every run. The crash loop's
    # and the unplaceable actor's pods are two (the first ReplicaSet's, and the one whose
    # template has the queue's URL); the newcomer's first pod runs before its queue is ready.
    for name, column, count in (
        ("crasher", "Failing", 2),
        ("placer", "Pending", 2),
        ("pinned", "Running", 0),
        ("newcomer", "Running", 1),
    ):
        settled = functools.partial(_shows, world, name, column, count)
        rig.eventually(settled, 180, f"{name}'s {column} at {count}")


def _shows(world: World, name: str, column: str, count: int) -> bool:
    return bool(world.row(name).get(column) == count)


def main() -> int:
    """Capture the table and write it into docs/status.md."""
    if absent := rig.missing_tools() + life.missing():
        print(
            f"docs/status.md's phases left as they are: {', '.join(absent)} missing",
            file=sys.stderr,
        )
        return 0
    with living("v2") as world:
        _live(world)
        table = _table(world)
    text = DOC.read_text()
    if not BLOCK.search(text):
        print("docs/status.md has no phases block", file=sys.stderr)
        return 1
    DOC.write_text(BLOCK.sub(lambda m: m[1] + table + m[2], text))
    return 0


if __name__ == "__main__":
    sys.exit(main())
