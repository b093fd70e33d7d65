"""The observed composite resource: who the actor is, where it lives, which flavors it asks for."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from function.errors import InputError
from function.models import names
from function.models.spec import MAX_FLAVORS, MIN_FLAVOR_NAME

CLAIM_NAMESPACE_LABEL = "crossplane.io/claim-namespace"
CLAIM_NAME_LABEL = "crossplane.io/claim-name"
# The label Crossplane puts on what it composes: the XR's name.
COMPOSITE_LABEL = "crossplane.io/composite"
# The v1 form wraps each Kubernetes object it composes in provider-kubernetes' Object.
WRAPPER_API_VERSION = "kubernetes.crossplane.io/v1alpha2"
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


def _map(value: Any, where: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InputError(f"cannot read the observed composite resource: {where} must be a map")
    return value


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise InputError(f"cannot read the observed composite resource: {where} must be a string")
    return value


def _labels(metadata: dict[str, Any]) -> dict[str, str]:
    labels = _map(metadata.get("labels"), "metadata.labels")
    return {key: _text(value, f"metadata.labels[{key}]") for key, value in labels.items()}


def _namespace(body: dict[str, Any], labels: dict[str, str]) -> tuple[str, bool]:
    metadata = _map(body.get("metadata"), "metadata")
    if metadata.get("namespace"):
        return _text(metadata["namespace"], "metadata.namespace"), True
    if labels.get(CLAIM_NAMESPACE_LABEL):
        return labels[CLAIM_NAMESPACE_LABEL], False
    claim_ref = _map(body["spec"].get("claimRef"), "spec.claimRef")
    if claim_ref.get("namespace"):
        return _text(claim_ref["namespace"], "spec.claimRef.namespace"), False
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
    short = [n for n in raw if len(n) < MIN_FLAVOR_NAME]
    if short:
        raise InputError(
            f"invalid actor spec: flavors: names must have {MIN_FLAVOR_NAME} or more characters: "
            + ", ".join(short)
        )
    # Such a flavor can never exist: refuse it now rather than wait for it forever.
    impossible = [n for n in raw if not names.is_object_name(n)]
    if impossible:
        raise InputError(
            "invalid actor spec: flavors: not a valid object name (lowercase letters, digits, "
            f"'-' and '.', at most {names.MAX_OBJECT_NAME} characters): "
            + ", ".join(repr(n) for n in impossible)
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
        InputError: when the XR has no spec, its metadata is not shaped as
            Kubernetes writes it, no namespace can be found, or the flavors list
            is not a list of unique names.
    """
    spec = body.get("spec")
    if not isinstance(spec, dict):
        raise InputError("cannot read the observed composite resource: it has no spec")
    metadata = _map(body.get("metadata"), "metadata")
    labels = _labels(metadata)
    namespace, namespaced = _namespace(body, labels)
    name = _text(metadata.get("name", ""), "metadata.name")
    if problem := names.label_value_problem(name):
        raise InputError(
            f"cannot read the observed composite resource: metadata.name: {problem}: the XR's "
            f"name labels what it composes ({COMPOSITE_LABEL})"
        )
    return Composite(
        name=name,
        namespace=namespace,
        namespaced=namespaced,
        labels=labels,
        spec={k: v for k, v in spec.items() if k not in CROSSPLANE_MACHINERY},
        flavors=_flavors(spec),
    )
