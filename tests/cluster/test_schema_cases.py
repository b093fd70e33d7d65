"""The real API server judges every leaf the typed spec admits, both ways (tests/schema_cases.py).

For each case the function renders the actor in the v2 form under the most permissive
platform (Pod Security privileged, every volume kind allowed, so that the platform's own
choices hide no leaf), and:

- what it renders, the API server accepts (dry-run); a refusal is a rule the gate lacks;
- what it refuses, rendered again with the rules it mirrors of the API server and KEDA
  switched off, the API server refuses too, unless the platform's own rules refuse it; a
  render the API server then takes was a false refusal.

No refusal may be false. The leaves whose cases the API server still refuses after the
function rendered them are the rules the gate lacks yet: each is listed, with the API
server's words for its first case, in schema_holes.txt, and the list must be exactly what
is found (a new one fails, and so does one no longer found, so the list only shrinks).
`FUNCTION_ASYA_SCHEMA_HOLES=write` writes it anew.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from crossplane.function.proto.v1 import run_function_pb2 as fnv1

from function import runner as fn
from function.codec import structs
from function.models.security import VOLUME_KINDS
from tests import schema_cases, support
from tests.cluster.dry_run import DryRun, api_server_rules_off

NAMESPACE = "cases"
SETTINGS = {
    "transport": "rabbitmq",
    "podSecurity": "privileged",
    "allowedVolumes": sorted(VOLUME_KINDS),
}
RUNNER = fn.FunctionRunner()
HOLES = Path(__file__).with_name("schema_holes.txt")


def _leaf(case: str) -> str:
    return re.sub(r" #\d+$", "", case)


def _said(refusal: str) -> str:
    """The API server's words without the values, which differ from case to case."""
    said = refusal.split(" is invalid: ", 1)[-1]
    said = re.sub(r'Invalid value: ("[^"]*"|-?\d+|\{[^}]*\})', "Invalid value", said)
    return re.sub(r"\[\d+\]", "[]", said)[:300]


def _listed(holes: dict[str, str]) -> str:
    return "".join(f"{leaf}: {said}\n" for leaf, said in sorted(holes.items()))


def deployment(spec: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
    """The Deployment the function renders for an actor with these parts, or its refusal."""
    xr = {
        "apiVersion": "asya.sh/v1alpha1",
        "kind": "AsyncActor",
        "metadata": {"name": "case", "namespace": NAMESPACE},
        "spec": {"actor": "case", "image": "case:1", "handler": "case.handle", **spec},
    }
    req = support.request(xr, input=support.struct(SETTINGS))
    rsp: fnv1.RunFunctionResponse = RUNNER.answer(req).message()
    if refused := support.fatal_messages(rsp):
        return None, refused[0]
    return structs.plain(rsp.desired.resources["deployment"].resource), ""


def test_every_case_is_rendered_and_taken_or_refused_by_both(dry_run: DryRun) -> None:
    holes: dict[str, str] = {}
    false: list[str] = []
    counts = {"rendered": 0, "refused by a mirrored rule": 0, "refused by the platform": 0}
    for case in schema_cases.cases():
        body, refusal = deployment(case.spec)
        if body is not None:
            counts["rendered"] += 1
            for said in dry_run.refused(body, namespace=NAMESPACE):
                holes.setdefault(_leaf(case.name), _said(said))
            continue
        with api_server_rules_off():
            unchecked, _ = deployment(case.spec)
        if unchecked is None:
            counts["refused by the platform"] += 1
            continue
        counts["refused by a mirrored rule"] += 1
        if not dry_run.refused(unchecked, namespace=NAMESPACE):
            false.append(f"{case.name}: {refusal}")
    print(counts)
    assert false == [], f"{len(false)} false refusals:\n" + "\n".join(false)
    if os.environ.get("FUNCTION_ASYA_SCHEMA_HOLES") == "write":
        HOLES.write_text(_listed(holes))
    known = dict(line.split(": ", 1) for line in HOLES.read_text().splitlines() if line)
    new = sorted(set(holes) - set(known))
    assert not new, "rendered and refused by the API server:\n" + _listed(
        {leaf: holes[leaf] for leaf in new}
    )
    gone = sorted(set(known) - set(holes))
    assert not gone, "no longer refused (strike them from schema_holes.txt):\n" + "\n".join(gone)
