"""Where each value of a resolved spec came from, and the one shape every spec error takes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import ValidationError

from function.cache import short_digest
from function.errors import FlavorError, SpecError
from function.models import messages
from function.resolve import paths

MAX_PROBLEMS = 5
# Hex digits of a source's digest: enough to tell two versions of one source apart.
DIGEST = 8


@dataclass(frozen=True)
class Layer:
    """Who set a value of a resolved spec: a function default, the actor, or a flavor."""

    kind: Literal["default", "actor", "flavor"]
    # The flavor's name (a flavor's layer only).
    flavor: str = ""
    # Where the flavor lives when it is not the EnvironmentConfig of its name.
    where: str = ""

    @classmethod
    def of_flavor(cls, name: str, where: str = "") -> Layer:
        """The layer of a flavor."""
        return cls("flavor", name, where)

    @property
    def label(self) -> str:
        """How messages name a flavor: `"gpu"`, or `"keys" in ConfigMap ml/keys`."""
        return f'"{self.flavor}"' + (f" in {self.where}" if self.where else "")

    def __str__(self) -> str:
        """How messages name a layer: `defaults`, `the actor's spec`, or `flavor "gpu"`."""
        if self.kind == "flavor":
            return f"flavor {self.label}"
        return "the actor's spec" if self.kind == "actor" else "defaults"


DEFAULT = Layer("default")
ACTOR = Layer("actor")


@dataclass(frozen=True)
class Provenance:
    """The resolved spec as plain data and the layers it was resolved from, highest first.

    Sources are found only on the error path: finding one scans the layers.
    """

    data: dict[str, Any]
    # (layer, data): the actor first, then the flavors in the actor's order.
    sources: tuple[tuple[Layer, dict[str, Any]], ...]

    def digests(self) -> dict[str, str]:
        """A short digest of what each source set: `actor`, then each flavor by name."""
        return {
            layer.flavor or layer.kind: short_digest(data, DIGEST) for layer, data in self.sources
        }

    def source(self, path: paths.Path) -> Layer:
        """The first layer that set the value at path (DEFAULT when none did)."""
        return next((layer for layer, data in self.sources if paths.contains(data, path)), DEFAULT)

    def setters(self, loc: Sequence[str | int]) -> tuple[Layer, ...]:
        """Every layer that set part of the value at a location (a map merged key by key)."""
        path = paths.located(self.data, list(loc))
        return tuple(layer for layer, data in self.sources if paths.contains(data, path))

    def blame(
        self,
        loc: Sequence[str | int],
        *,
        missing: bool = False,
        within: Sequence[str | int] = (),
    ) -> tuple[str, Layer]:
        """The dotted path of a location in the data, and the layer that set it.

        A value that is missing is blamed on whoever supplied the object lacking it.
        `within`: where inside the value at `loc` the wrong value is, when layers may
        have set different parts of it (`resources` merged key by key): that value's
        layer is blamed, and `loc` is what the message names.
        """
        path = paths.located(self.data, [*loc, *within])
        blamed = path
        if missing:
            # Whoever supplied the nearest value that is there (a container without a
            # securityContext at all lacks its allowPrivilegeEscalation too).
            blamed = path[:-1]
            while blamed and not paths.contains(self.data, blamed):
                blamed = blamed[:-1]
        origin = self.source(blamed)
        return paths.dotted(path[: len(loc)]) or "<spec>", origin

    def refuse(
        self,
        loc: Sequence[str | int],
        message: str,
        *,
        missing: bool = False,
        within: Sequence[str | int] = (),
    ) -> FlavorError:
        """The error for one bad value: its path, what is wrong, and where it came from."""
        return self.refuse_all([(loc, message, missing, within)])

    def refuse_all(
        self,
        problems: Sequence[tuple[Sequence[str | int], str, bool, Sequence[str | int]]],
    ) -> FlavorError:
        """One error for several bad values, each `path: message (from source)`.

        Each problem: where, what is wrong, whether the value is missing, and where
        inside it (see `blame`). It is a flavor's error when any value came from a
        flavor, else the actor's.
        """
        texts = []
        wheres = []
        blamed_flavor = False
        for loc, message, missing, within in problems[:MAX_PROBLEMS]:
            where, origin = self.blame(loc, missing=missing, within=within)
            wheres.append(where)
            blamed_flavor = blamed_flavor or origin.kind == "flavor"
            texts.append(f"{where}: {message}" + (f" (from {origin})" if origin != DEFAULT else ""))
        text = "; ".join(texts)
        path = wheres[0] if wheres else ""
        if blamed_flavor:
            return FlavorError(f"invalid flavor data: {text}", path=path)
        return SpecError(f"invalid actor spec: {text}", path=path)

    def invalid(self, exc: ValidationError) -> FlavorError:
        """The error for a spec that does not validate against the model."""
        return self.refuse_all(
            [
                (
                    _entry(error["loc"]),
                    messages.in_words(error),
                    error["type"] == "missing",
                    (),
                )
                for error in exc.errors(include_url=False)
            ]
        )


def _entry(loc: tuple[str | int, ...]) -> list[str | int]:
    """Where a model error is: a map key pydantic refuses is named by its entry (no `[key]`)."""
    return list(loc[:-1] if len(loc) > 1 and loc[-1] == "[key]" else loc)
