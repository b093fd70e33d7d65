"""What KEDA and the autoscaler would refuse of the ScaledObject, refused or warned of first.

Only while scaling is on: without it no ScaledObject is rendered, and these settings
are read by nothing. KEDA's own checks (apis/keda/v1alpha1: ValidateTriggers,
scaledobject_webhook.go): each trigger's name unique (the function's own is `queue`),
no cached metrics for the cpu, memory and cron scalers, a formula's target a number
above zero as strconv.ParseFloat reads it, a formula reading only the triggers KEDA
hands it; the HPA's least replicas at most its most.

A `cpu` or `memory` trigger needs every container of the Deployment's pod (only the
one its `containerName` names, when set) to request or limit that resource above
zero, unless a LimitRange of the namespace gives one by default (verifyCPUMemoryScalers).
The function cannot see LimitRanges, so each such container is a warning, naming the
field that would settle it; init containers are not checked (KEDA reads the pod's
containers only). A target without a formula is dropped from the ScaledObject: a
warning says so.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from function.codec import go_scalars
from function.models import pod, quantity
from function.models.pod import Loc
from function.models.scaling import QUEUE_TRIGGER
from function.models.spec import Spec
from function.resolve.provenance import DEFAULT, Provenance

RESOURCE_SCALERS = ("cpu", "memory")
# The scalers whose metrics KEDA will not cache (ValidateTriggers).
UNCACHED_SCALERS = frozenset({"cpu", "memory", "cron"})


def check(spec: Spec, origin: Provenance) -> None:
    """Refuse what KEDA or the autoscaler would refuse, naming the field and its layer.

    Raises:
        FlavorError: (or its SpecError form) for the first such value.
    """
    scaling = spec.scaling
    if not scaling.enabled:
        return
    named: set[str] = set()
    for index, trigger in enumerate(scaling.additional_triggers):
        at = ("scaling", "additionalTriggers", index)
        if trigger.name == QUEUE_TRIGGER:
            raise origin.refuse(
                (*at, "name"),
                f"{QUEUE_TRIGGER!r} is the actor's own trigger on its queue: name this one "
                "otherwise",
            )
        if trigger.name and trigger.name in named:
            raise origin.refuse(
                (*at, "name"), "another trigger has this name: KEDA needs each name unique"
            )
        named.add(trigger.name or "")
        if trigger.use_cached_metrics and trigger.type in UNCACHED_SCALERS:
            raise origin.refuse(
                (*at, "useCachedMetrics"), f"KEDA caches no metrics of the {trigger.type} scaler"
            )
    advanced = scaling.advanced
    if advanced and advanced.formula:
        readable = {QUEUE_TRIGGER} | {
            trigger.name
            for trigger in scaling.additional_triggers
            if trigger.name and trigger.type not in RESOURCE_SCALERS
        }
        if problem := formula_problem(advanced.formula, readable):
            raise origin.refuse(("scaling", "advanced", "formula"), problem)
    if advanced and advanced.formula and not _keda_target(advanced.target or ""):
        raise origin.refuse(
            ("scaling", "advanced", "target"),
            'must be a number above zero, as text (such as "5" or "2.5")',
        )
    if scaling.min_replica_count > scaling.max_replica_count:
        _, most_from = origin.blame(("scaling", "maxReplicaCount"))
        raise origin.refuse(
            ("scaling", "minReplicaCount"),
            f"{scaling.min_replica_count} is above maxReplicaCount {scaling.max_replica_count} "
            + (f"(from {most_from})" if most_from != DEFAULT else "(the function's default)"),
        )


# A formula's tokens, as expr (the language KEDA compiles formulas in) reads them:
# comments, strings (bytes too), numbers, names, and any other one character.
_TOKEN = re.compile(
    r"(?P<comment>//[^\n]*|/\*[\s\S]*?\*/)"
    r"""|(?P<string>b?"(?:[^"\\]|\\.)*"|b?'(?:[^'\\]|\\.)*'|`[^`]*`)"""
    r"|(?P<number>0[xXoObB][0-9a-fA-F_]+|[0-9][0-9_]*(?:\.[0-9_]+)?(?:[eE][+-]?[0-9]+)?"
    r"|\.[0-9]+)"
    r"|(?P<name>[A-Za-z_$][A-Za-z0-9_$]*)"
    r"|(?P<other>\S)"
)
# Names expr reads as its own: literals and word operators.
_EXPR_WORDS = frozenset(
    {"true", "false", "nil", "and", "or", "not", "in", "matches", "contains", "startsWith"}
    | {"endsWith", "let", "if", "else", "$env"}
)
_PAIRS = {")": "(", "]": "[", "}": "{"}
# KEDA wraps a formula in this unless it starts so (castToFloatIfNecessary).
_KEDA_CAST = "float("


def formula_problem(formula: str, readable: set[str]) -> str:
    """What KEDA's compile of a formula would refuse in its names and brackets ('' for nothing).

    KEDA compiles the formula with only the named triggers other than cpu and memory
    in scope (validateScalingModifiersFormula): any other name is an error. Names
    called as functions (expr's builtins) and read as members (`.field`) are not
    checked, and neither is the rest of expr's grammar: KEDA's compile judges that.
    """
    known = set(readable) | _EXPR_WORDS
    matches = list(_TOKEN.finditer(formula))
    tokens = [(match.lastgroup, match.group()) for match in matches if match.lastgroup != "comment"]
    # A // comment runs to the end of its line: on the last, past the ")" KEDA appends.
    if (
        matches
        and matches[-1].group().startswith("//")
        and matches[-1].lastgroup == "comment"
        and matches[-1].end() == len(formula)
        and not formula.startswith(_KEDA_CAST)
    ):
        return (
            f"a // comment on its last line hides the ')' of the {_KEDA_CAST}...) KEDA wraps a "
            "formula in: end it with a line break, or write /* */"
        )
    opened: list[str] = []
    for at, (kind, text) in enumerate(tokens):
        following = tokens[at + 1][1] if at + 1 < len(tokens) else ""
        before = tokens[at - 1][1] if at else ""
        if kind == "other" and text in "([{":
            opened.append(text)
        elif kind == "other" and text in _PAIRS:
            if not opened or opened.pop() != _PAIRS[text]:
                return "its brackets do not pair"
        elif kind == "name" and before == "let":
            known.add(text)
        elif kind == "name" and opened[-1:] == ["{"] and following == ":":
            continue  # a map's key
        elif (
            kind == "name"
            and text not in known
            and following != "("  # a function: expr's builtins
            and before not in (".", "#")  # a member, or a closure's #index and #acc
        ):
            return (
                f"reads {text!r}, which is no trigger KEDA hands a formula: queue and the named "
                f"triggers other than cpu and memory ({', '.join(sorted(readable))})"
            )
    return "its brackets do not pair" if opened else ""


def _keda_target(text: str) -> bool:
    """Whether KEDA takes `text` as a target: what strconv.ParseFloat reads, not at or below zero."""
    number = go_scalars.parse_float(text)
    # NaN is not at or below zero: KEDA takes it.
    return number is not None and not number <= 0


def _containers(data: Mapping[str, Any]) -> Iterator[tuple[str, Loc]]:
    """Each container of the pod (not the init containers) and where the spec configures it."""
    for place in pod.container_places(data):
        if place[:1] == ("initContainers",):
            continue
        if place == ():
            name = pod.RUNTIME
        elif place == ("sidecar",):
            name = pod.SIDECAR
        elif place[0] == "stateProxy":
            name = pod.connector_name(str(pod.value_at(data, (*place[:2], "name"))))
        else:
            name = str(pod.value_at(data, (*place, "name")))
        yield name, place


def _asks_for(resources: Any, resource: str) -> bool:
    """Whether a container's resources request or limit `resource` above zero."""
    if not isinstance(resources, Mapping):
        return False
    for part in ("requests", "limits"):
        amounts = resources.get(part)
        amount = quantity.parse(amounts.get(resource)) if isinstance(amounts, Mapping) else None
        if amount is not None and amount > 0:
            return True
    return False


def warnings(spec: Spec, origin: Provenance) -> list[str]:
    """A warning for each container a resource trigger needs a request of, and for a dropped target."""
    if not spec.scaling.enabled:
        return []
    said = []
    advanced = spec.scaling.advanced
    if advanced and not advanced.formula:
        unused = [
            key
            for key, value in (
                ("target", advanced.target),
                ("activationTarget", advanced.activation_target),
                ("metricType", advanced.metric_type),
            )
            if value is not None
        ]
        if unused:
            said.append(
                f"scaling.advanced: {' and '.join(unused)} take effect only with a formula: "
                "left out of the ScaledObject"
            )
    for index, trigger in enumerate(spec.scaling.additional_triggers):
        if trigger.type not in RESOURCE_SCALERS:
            continue
        named = trigger.metadata.get("containerName", "")
        for name, place in _containers(origin.data):
            resources = pod.value_at(origin.data, (*place, "resources"))
            if (named and name != named) or _asks_for(resources, trigger.type):
                continue
            field, _ = origin.blame((*place, "resources"))
            said.append(
                f"scaling.additionalTriggers[{index}]: KEDA refuses a {trigger.type} trigger "
                f"while container {name} has no {trigger.type} request or limit (unless a "
                f"LimitRange of the namespace gives one): set {field}.requests.{trigger.type}"
            )
    return said
