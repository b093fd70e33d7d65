"""`flavors plan` over a fleet: 10,000 actors, a library change, the wall time (BENCHMARKS.md).

The actors are the examples/flavored actors, repeated under distinct names in one
`List` (as `kubectl get asyncactors -A -o yaml` prints it); the change is
examples/flavor-change over the example library.

    python -m bench.plan [--actors N]
"""

from __future__ import annotations

import argparse
import copy
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def fleet(count: int) -> dict[str, object]:
    """`count` actors cycling through the flavored examples, each of its own name."""
    models = [yaml.safe_load(p.read_text()) for p in sorted((EXAMPLES / "flavored").glob("*.yaml"))]
    items = []
    for index in range(count):
        body = copy.deepcopy(models[index % len(models)])
        body["metadata"]["name"] = f"actor-{index:05d}-x1y2z"
        body["metadata"].setdefault("labels", {})["crossplane.io/claim-name"] = f"actor-{index:05d}"
        body["spec"]["actor"] = f"actor-{index:05d}"
        items.append(body)
    return {"apiVersion": "v1", "kind": "List", "items": items}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--actors", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        listed = Path(scratch) / "actors.yaml"
        listed.write_text(yaml.safe_dump(fleet(args.actors)))
        command = [
            str(Path(sys.executable).parent / "function-asya"),
            "flavors",
            "plan",
            *("--before", str(EXAMPLES / "flavors"), "--before", str(EXAMPLES / "team-flavors")),
            *("--after", str(EXAMPLES / "flavors"), "--after", str(EXAMPLES / "team-flavors")),
            *("--after", str(EXAMPLES / "flavor-change")),
            *("--actors", str(listed), "-o", "json"),
        ]
        began = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        seconds = time.perf_counter() - began
    summary = json.loads(done.stdout)["summary"]
    per_actor = seconds / args.actors * 1e3
    print(f"{args.actors:,} actors: {seconds:.1f} s ({per_actor:.2f} ms an actor); {summary}")


if __name__ == "__main__":
    main()
