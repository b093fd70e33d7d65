"""The real API server judges every leaf the typed spec admits, both ways (tests/schema_cases.py).

For each case the function renders the actor in the v2 form under the most permissive
platform (Pod Security privileged, every volume kind allowed, so that the platform's own
choices hide no leaf), and:

- what it renders, the API server accepts (dry-run); a refusal is a rule the gate lacks;
- what it refuses, rendered again with the rules it mirrors of the API server and KEDA
  switched off, the API server refuses too, unless the platform's own rules refuse it; a
  render the API server then takes was a false refusal.

Both must hold for every case: a leaf the API server refuses after the function rendered
it is a rule the gate lacks (api_server_checks.py), named with the API server's words for
its first case.
"""

from __future__ import annotations

import re
from typing import Any

from crossplane.function.proto.v1 import run_function_pb2 as fnv1

from function import runner as fn
from function.codec import structs
from function.models.security import VOLUME_KINDS
from tests import schema_cases, support
from tests.cluster.dry_run import DryRun, api_server_rules_off

# Only the Deployment is judged (the RabbitMQ transport composes no queue): no provider CRD.
NEEDS_SCHEMAS = False
NAMESPACE = "cases"
SETTINGS = {
    "transport": "rabbitmq",
    "podSecurity": "privileged",
    "allowedVolumes": sorted(VOLUME_KINDS),
}
RUNNER = fn.FunctionRunner()


def _leaf(case: str) -> str:
    return re.sub(r" #\d+$", "", case)


def _said(refusal: str) -> str:
    """The API server's words without the values, which differ from case to case."""
    said = refusal.split(" is invalid: ", 1)[-1]
    said = re.sub(r'Invalid value: ("[^"]*"|-?\d+|\{[^}]*\})', "Invalid value", said)
    return re.sub(r"\[\d+\]", "[]", said)[:300]


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
    assert holes == {}, "rendered and refused by the API server:\n" + "".join(
        f"{leaf}: {said}\n" for leaf, said in sorted(holes.items())
    )
