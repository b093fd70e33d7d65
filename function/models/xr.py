"""The observed composite resource: who the actor is, where it lives, which flavors it asks for."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from function.errors import InputError
from function.models.spec import MAX_FLAVORS

CLAIM_NAMESPACE_LABEL = "crossplane.io/claim-namespace"
# Keys Crossplane itself writes into an XR's spec: never actor settings.
CROSSPLANE_MACHINERY = frozenset(
    {
        "compositionRef",
        "compositionSelector",
        "compositionRevisionRef",
        "compositionRevisionSelector",
        "compositionUpdatePolicy",
        "claimRef",
        "resourceRef",
        "resourceRefs",
        "writeConnectionSecretToRef",
        "publishConnectionDetailsTo",
        "environmentConfigRefs",
        "crossplane",
    }
)


@dataclass(frozen=True)
class Composite:
    """What the function needs from the observed XR."""

    name: str
    namespace: str
    namespaced: bool
    labels: dict[str, str]
    spec: dict[str, Any]  # the actor's own settings, machinery removed
    flavors: tuple[str, ...]


def _namespace(body: dict[str, Any]) -> tuple[str, bool]:
    metadata = body.get("metadata") or {}
    if metadata.get("namespace"):
        return str(metadata["namespace"]), True
    labels = metadata.get("labels") or {}
    if labels.get(CLAIM_NAMESPACE_LABEL):
        return str(labels[CLAIM_NAMESPACE_LABEL]), False
    claim_ref = (body.get("spec") or {}).get("claimRef") or {}
    if isinstance(claim_ref, dict) and claim_ref.get("namespace"):
        return str(claim_ref["namespace"]), False
    raise InputError(
        "cannot find the actor's namespace: the XR has no metadata.namespace, no "
        f"{CLAIM_NAMESPACE_LABEL} label and no spec.claimRef.namespace"
    )


def _flavors(spec: dict[str, Any]) -> tuple[str, ...]:
    raw = spec.get("flavors")
    if raw is None:
        return ()
    if not isinstance(raw, list) or not all(isinstance(n, str) for n in raw):
        raise InputError("invalid actor spec: flavors: must be a list of flavor names")
    if len(raw) > MAX_FLAVORS:
        raise InputError(
            f"invalid actor spec: flavors: at most {MAX_FLAVORS} flavors, got {len(raw)}"
        )
    short = [n for n in raw if len(n) < 3]
    if short:
        raise InputError(
            f"invalid actor spec: flavors: names must have 3 or more characters: {', '.join(short)}"
        )
    duplicates = sorted({n for n in raw if raw.count(n) > 1})
    if duplicates:
        raise InputError(
            f"invalid actor spec: flavors: listed more than once: {', '.join(duplicates)}"
        )
    return tuple(raw)


def parse(body: dict[str, Any]) -> Composite:
    """Read the observed XR.

    Raises:
        InputError: when the XR has no spec, no namespace can be found, or the
            flavors list is not a list of unique names.
    """
    spec = body.get("spec")
    if not isinstance(spec, dict):
        raise InputError("cannot read the observed composite resource: it has no spec")
    metadata = body.get("metadata") or {}
    namespace, namespaced = _namespace(body)
    labels = metadata.get("labels") or {}
    return Composite(
        name=str(metadata.get("name", "")),
        namespace=namespace,
        namespaced=namespaced,
        labels={str(k): str(v) for k, v in labels.items()} if isinstance(labels, dict) else {},
        spec={k: v for k, v in spec.items() if k not in CROSSPLANE_MACHINERY},
        flavors=_flavors(spec),
    )
