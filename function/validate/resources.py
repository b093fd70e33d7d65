"""What the API server refuses in a container's `resources`, beyond what their schema says.

Written from Kubernetes' container resource validation: a container asks for `cpu`,
`memory`, `ephemeral-storage`, huge pages (`hugepages-2Mi`) or an extended resource
named with a domain (`nvidia.com/gpu`); no amount is negative; an extended resource
is a whole number; a request is at most its limit, and equals it where the resource
cannot be overcommitted (extended resources, huge pages), which therefore need a
limit; huge pages come with cpu or memory; and a container claims no resource the pod
does not declare (the function declares none; a cluster before 1.34 without dynamic
resource allocation drops the claim instead, which leaves it as useless). A quantity the API server cannot read at
all (`1Gb`) is skipped here and refused by the schema check, which runs once these
rules pass (kube_schemas).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import ROUND_UP, Decimal
from typing import Any

from function.models import names, pod, quantity
from function.models.plain import MAP
from function.models.pod import Loc
from function.resolve.provenance import Provenance

STANDARD = frozenset({"cpu", "memory", "ephemeral-storage"})
HUGE_PAGES = "hugepages-"
NATIVE_DOMAIN = "kubernetes.io/"
# The longest resource name: a DNS prefix, `/`, a name.
MAX_NAME = names.MAX_OBJECT_NAME + 1 + names.MAX_LABEL
# The longest value a refusal repeats as it is.
SHOWN = 40
NAMES_ALLOWED = (
    "cpu, memory, ephemeral-storage, hugepages-<page size>, "
    "or an extended resource named with its domain (example.com/gpu)"
)


def check(origin: Provenance) -> None:
    """Refuse the first container `resources` the API server would refuse.

    Raises:
        FlavorError: (or its SpecError form) naming the path and where it came from.
    """
    for place in pod.container_places(origin.data):
        loc = (*place, "resources")
        found = pod.value_at(origin.data, loc)
        if isinstance(found, MAP):
            _requirements(origin, loc, found)


def is_extended(name: str) -> bool:
    """A resource named with a domain other than Kubernetes' own (`nvidia.com/gpu`)."""
    return (
        "/" in name
        and NATIVE_DOMAIN not in name
        and not name.startswith("requests.")
        and names.is_qualified_name(f"requests.{name}")
    )


@dataclass(frozen=True)
class Resource:
    """What Kubernetes makes of a resource's name."""

    # Why a container cannot ask for it ('' when it can).
    problem: str
    # Counted in whole units: an extended resource.
    counted: bool
    # A request may be lower than the limit: not for extended resources or huge pages.
    overcommits: bool
    # Huge pages: their size ('' for other resources; None when the size is unreadable).
    pages: str = ""
    page_size: Decimal | None = None


@functools.lru_cache(maxsize=1024)  # a pure function of the name, and a fleet names few
def resource(name: str) -> Resource:
    """Read a resource's name as the API server does."""
    native = "/" not in name or NATIVE_DOMAIN in name
    huge = name.startswith(HUGE_PAGES)
    problem = ""
    if not names.is_qualified_name(name):
        problem = f"{name!r} is not a valid resource name"
    elif "/" not in name and name not in STANDARD and not huge:
        problem = f"{name!r} is not a resource a container can ask for: {NAMES_ALLOWED}"
    elif not native and not is_extended(name):
        problem = f"{name!r} is not a valid extended resource name: {NAMES_ALLOWED}"
    if not huge:
        return Resource(problem, counted=not native and not problem, overcommits=native)
    pages = name.removeprefix(HUGE_PAGES)
    size = quantity.parse(pages)
    whole = size.to_integral_value(rounding=ROUND_UP) if size is not None else None
    return Resource(problem, False, False, pages, whole if whole and whole > 0 else None)


def _kind(name: str) -> Resource:
    """`resource`, keeping only names a resource can have, so the memo's memory stays bounded."""
    return resource(name) if len(name) <= MAX_NAME else resource.__wrapped__(name)


def _shown(value: Any) -> str:
    """A value as a message shows it: quantities are short, anything long is cut."""
    text = str(value)
    return text if len(text) <= SHOWN else text[: SHOWN - 1] + "…"


def _amounts(origin: Provenance, loc: Loc, section: str, asked: Any) -> dict[str, Decimal]:
    """Each resource of a section and its amount, each amount held to the rules of its own."""
    found: dict[str, Decimal] = {}
    if not isinstance(asked, MAP):
        return found
    for name, value in asked.items():
        kind = _kind(name)
        if kind.problem:
            raise origin.refuse((*loc, section, name), kind.problem)
        amount = quantity.parse(value)
        if amount is None or not amount.is_finite():
            continue  # unreadable: the schema check says so (or too large to hold)
        if amount < 0:
            raise origin.refuse(
                (*loc, section, name), f"{_shown(value)} is negative; an amount is 0 or more"
            )
        if kind.counted and not quantity.is_whole(amount):
            raise origin.refuse(
                (*loc, section, name),
                f"{_shown(value)} is not a whole number: {name} is counted in units",
            )
        if kind.pages and (
            kind.page_size is None or not quantity.whole_multiple(amount, kind.page_size)
        ):
            raise origin.refuse(
                (*loc, section, name),
                f"{_shown(value)} is not a whole number of {kind.pages} pages",
            )
        found[name] = amount
    return found


def _requirements(origin: Provenance, loc: Loc, resources: Mapping[str, Any]) -> None:
    claims = resources.get("claims")
    if isinstance(claims, list) and claims:
        raise origin.refuse(
            (*loc, "claims"), "the pod declares no resource claims for a container to use"
        )
    written = resources.get("limits")
    written = written if isinstance(written, MAP) else {}
    limits = _amounts(origin, loc, "limits", written)
    requests = _amounts(origin, loc, "requests", resources.get("requests"))
    for name, amount in requests.items():
        where = (*loc, "requests", name)
        limit = limits.get(name)
        overcommits = _kind(name).overcommits
        if limit is None:
            if not overcommits and name not in written:
                raise origin.refuse(
                    where,
                    f"{name} cannot be overcommitted: set its limit too, equal to the request",
                )
            continue
        if amount == limit or (overcommits and amount < limit):
            continue
        asked_for, capped_at = _shown(resources["requests"][name]), _shown(written[name])
        said = f"{asked_for} is more than the limit {capped_at}"
        if not overcommits:
            said = f"{name} cannot be overcommitted: the request must equal the limit {capped_at}"
        _, request_source = origin.blame(where)
        _, limit_source = origin.blame((*loc, "limits", name))
        if limit_source != request_source:
            said += f" (the limit from {limit_source})"
        raise origin.refuse(where, said)
    asked = {*limits, *requests}
    if any(_kind(name).pages for name in asked) and not asked & {"cpu", "memory"}:
        raise origin.refuse(loc, "huge pages need a cpu or memory request or limit beside them")
