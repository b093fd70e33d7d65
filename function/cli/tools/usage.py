"""Which actors use which flavor: before deprecating, editing or deleting one.

The seeds' flavor guide asks platform engineers to "monitor flavor usage … to
understand impact before deprecating" with kubectl and jq; this answers it offline,
for claims and XRs in files or the output of `kubectl get asyncactors -A -o yaml`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from function.cli.render.files import Document
from function.cli.tools.library import Entry, actor_label
from function.errors import FunctionError
from function.models import xr as xr_model


@dataclass(frozen=True)
class Actor:
    """An actor as usage counts it: where it lives, how it is named, the flavors it lists."""

    namespace: str
    label: str  # library.actor_label
    flavors: tuple[str, ...]


@dataclass
class Use:
    """One flavor of the library (or one no file defines) and the actors listing it."""

    flavor: str
    kind: str  # EnvironmentConfig, ConfigMap, or "" when missing
    namespace: str = ""
    actors: list[str] = field(default_factory=list)
    deprecated: str | None = None  # the deprecation message, when deprecated

    def as_dict(self) -> dict[str, Any]:
        """The JSON form."""
        found: dict[str, Any] = {"flavor": self.flavor, "kind": self.kind or None}
        if self.namespace:
            found["namespace"] = self.namespace
        found["actors"] = self.actors
        if self.deprecated is not None:
            found["deprecationMessage"] = self.deprecated
        return found


def actors_in(documents: Sequence[Document]) -> tuple[list[Actor], list[str]]:
    """The actors (`library.actors`), and why any cannot be read, naming its file and document."""
    found: list[Actor] = []
    problems: list[str] = []
    for doc in documents:
        try:
            xr = xr_model.parse(doc.body)
        except FunctionError as exc:
            problems.append(f"{doc.where}: {doc.kind} {actor_label(doc.body)}: {exc}")
            continue
        found.append(Actor(xr.namespace, actor_label(doc.body), xr.flavors))
    return found, problems


def usage(actors: Sequence[Actor], library: Sequence[Entry]) -> list[Use]:
    """Every flavor of the library and every flavor an actor lists, with its actors.

    An actor's flavor is its namespace's ConfigMap of that name where the library holds
    one, else the EnvironmentConfig (the function refuses an actor whose flavor is
    both); a flavor the library does not define is missing (kind "").
    """
    uses: dict[tuple[str, str, str], Use] = {}
    for entry in library:
        deprecated = None
        if entry.flavor is not None and entry.flavor.deprecated:
            deprecated = entry.flavor.deprecation_message
        uses.setdefault(
            (entry.kind, entry.namespace, entry.name),
            Use(entry.name, entry.kind, entry.namespace, deprecated=deprecated),
        )
    for actor in actors:
        for name in actor.flavors:
            key = next(
                (
                    candidate
                    for candidate in (
                        ("ConfigMap", actor.namespace, name),
                        ("EnvironmentConfig", "", name),
                    )
                    if candidate in uses and uses[candidate].kind
                ),
                ("", "", name),
            )
            uses.setdefault(key, Use(name, ""))
            uses[key].actors.append(actor.label)
    return sorted(uses.values(), key=lambda use: (use.flavor, use.namespace, use.kind))


def report(uses: Sequence[Use]) -> dict[str, Any]:
    """The JSON report: every flavor, and the missing, deprecated-but-used and unused ones."""
    return {
        "flavors": [use.as_dict() for use in uses],
        "missing": [use.as_dict() for use in uses if not use.kind],
        "deprecatedInUse": [
            use.as_dict() for use in uses if use.deprecated is not None and use.actors
        ],
        "unused": [use.as_dict() for use in uses if use.kind and not use.actors],
    }


def text(uses: Sequence[Use]) -> list[str]:
    """What a person reads in a terminal."""
    lines = []
    for use in uses:
        where = (
            "missing"
            if not use.kind
            else f"{use.kind}" + (f" in {use.namespace}" if use.namespace else "")
        )
        count = len(use.actors)
        line = f"{use.flavor} ({where}): {count} actor{'' if count == 1 else 's'}"
        if use.actors:
            line += ": " + ", ".join(use.actors)
        if use.deprecated is not None:
            line += f" [deprecated: {use.deprecated or 'no reason given'}]"
        lines.append(line)
    return lines
