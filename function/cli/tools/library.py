"""A flavor library read from files: EnvironmentConfigs and ConfigMap flavors, as the function reads them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from function.cli.render import files
from function.cli.render.errors import RenderError
from function.cli.render.files import Document
from function.errors import FlavorError, FunctionError
from function.models import input as fn_input
from function.models import xr as xr_model
from function.models.input import Input
from function.resolve import actor
from function.resolve.actor import Lookup
from function.resolve.layers import Resolution
from function.resolve.sources import FLAVOR_LABEL, Flavor, from_config_map, from_environment_config
from function.validate import gate

# What the tools take as an actor: the claim or v2 XR, and the v1 XR, of the version
# the XRDs serve.
ACTOR_KINDS = frozenset({("asya.sh/v1alpha1", "AsyncActor"), ("asya.sh/v1alpha1", "XAsyncActor")})


@dataclass(frozen=True)
class Entry:
    """One flavor of the library: the object defining it and what it says, or why it cannot be read."""

    name: str
    kind: str  # EnvironmentConfig or ConfigMap
    body: dict[str, Any]
    namespace: str = ""  # a ConfigMap flavor's namespace
    flavor: Flavor | None = None
    error: str = ""
    source: str = ""  # the file it was read from

    @property
    def identity(self) -> tuple[str, str, str]:
        """What makes it one flavor of a cluster: its kind, namespace and name."""
        return (self.kind, self.namespace, self.name)


def load(paths: Sequence[str]) -> list[Entry]:
    """Read every flavor of the files and directories given (a kubectl List's items too).

    A ConfigMap without the flavor label is passed over (`kubectl get configmaps` prints
    every namespace's kube-root-ca.crt); any other kind is refused.

    Raises:
        RenderError: when a file cannot be read, is not YAML, holds no object, or holds
            an object that is not a flavor (naming the file and the document).
    """
    found = []
    for path in paths:
        for doc in files.load(path, allow_empty=False):
            entry = _entry(doc)
            if entry is None and doc.kind != "ConfigMap":
                raise RenderError(
                    f"{doc.where}: {doc.kind} {doc.name} ({doc.api_version}) is not a flavor: "
                    "a library holds EnvironmentConfigs of apiextensions.crossplane.io and "
                    f"ConfigMaps labelled {FLAVOR_LABEL}"
                )
            found += [entry] if entry else []
    return found


def actors(paths: Sequence[str]) -> list[Document]:
    """Read the actors of the files and directories given (a kubectl List's items too).

    Raises:
        RenderError: as `load`, for an object that is not an actor, and when paths
            were given and hold none (an empty List): nothing read is no pass.
    """
    found = [doc for path in paths for doc in files.load(path, allow_empty=False)]
    if paths and not found:
        raise RenderError(f"no actors in {', '.join(paths)}")
    for doc in found:
        if (doc.api_version, doc.kind) not in ACTOR_KINDS:
            raise RenderError(
                f"{doc.where}: {doc.kind} {doc.name} ({doc.api_version}) is not an actor: "
                "the tools take AsyncActor claims or XRs, and XAsyncActors, of asya.sh/v1alpha1"
            )
    return found


def plural(count: int, noun: str) -> str:
    """`1 actor`, `2 actors`."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _entry(doc: Document) -> Entry | None:
    body, name, source = doc.body, doc.name, doc.source
    if doc.kind == "EnvironmentConfig" and doc.api_version.startswith(
        "apiextensions.crossplane.io/"
    ):
        try:
            flavor = from_environment_config(name, body)
        except FlavorError as exc:
            return Entry(name, doc.kind, body, error=str(exc), source=source)
        return Entry(name, doc.kind, body, flavor=flavor, source=source)
    labels = doc.metadata.get("labels") or {}
    if doc.kind == "ConfigMap" and isinstance(labels, dict) and FLAVOR_LABEL in labels:
        namespace = str(doc.metadata.get("namespace") or "")
        try:
            flavor = from_config_map(name, namespace, body)
        except FlavorError as exc:
            return Entry(name, doc.kind, body, namespace, error=str(exc), source=source)
        return Entry(name, doc.kind, body, namespace, flavor=flavor, source=source)
    return None


def actor_label(body: dict[str, Any]) -> str:
    """How the tools name an actor: `<namespace>/<name>`, its claim's for a v1 XR."""
    try:
        xr = xr_model.parse(body)
    except FunctionError:
        metadata = body.get("metadata")
        if not isinstance(metadata, dict):
            metadata = {}
        return f"{metadata.get('namespace', '?')}/{metadata.get('name', '?')}"
    return f"{xr.namespace}/{xr.labels.get(xr_model.CLAIM_NAME_LABEL) or xr.name}"


def overlaid(entries: Sequence[Entry]) -> list[Entry]:
    """The library with each flavor's last definition: later paths replace earlier ones.

    How `flavors plan` reads a base library followed by the files a change edits.
    """
    last = {entry.identity: entry for entry in entries}
    return list(last.values())


def resolve(body: dict[str, Any], library: Sequence[Entry], settings: Input) -> Resolution:
    """Resolve an actor against the library as the function does when Crossplane 2 calls it.

    Raises:
        FunctionError: the function's error for the actor.
    """
    xr = xr_model.parse(body)
    found = actor.lookup(xr, settings, namespaced_selectors=True)
    return gate.admit(xr, settings, actor.flavors_of(found, fetched_for(found, library)))


def fetched_for(lookup: Lookup, library: Sequence[Entry]) -> dict[str, list[dict[str, Any]]]:
    """Answer the function's requirements from the library, as Crossplane 2 would."""
    found: dict[str, list[dict[str, Any]]] = {}
    for requirement in lookup.wanted:
        found[requirement.key] = [
            entry.body
            for entry in library
            if entry.name == requirement.flavor
            and entry.kind == requirement.kind
            and entry.namespace == requirement.namespace
        ][:1]
    return found


def step_input(composition: Mapping[str, Any]) -> dict[str, Any]:
    """The Input of a Composition's function-asya step (by its Input's apiVersion).

    Raises:
        ValueError: when no step carries one.
    """
    for step in (composition.get("spec") or {}).get("pipeline") or []:
        found = step.get("input") if isinstance(step, dict) else None
        if isinstance(found, dict) and found.get("apiVersion") == fn_input.API_VERSION:
            return found
    raise ValueError("no step of the Composition has function-asya's Input")


# The shipped Composition of each form, for actors whose plan names none.
SHIPPED = Path(__file__).resolve().parents[3] / "compositions"
SHIPPED_COMPOSITIONS = {
    "XAsyncActor": SHIPPED / "asyncactor-sqs.yaml",
    "AsyncActor": SHIPPED / "asyncactor-sqs-namespaced.yaml",
}


def composition_inputs(composition: str | None) -> dict[str, tuple[dict[str, Any], Input]]:
    """Each XR kind's function-asya Input, as given and parsed: `composition`'s, else the shipped.

    Raises:
        RenderError: a Composition cannot be read; FunctionError: its Input does not parse.
    """
    chosen = {kind: composition or str(path) for kind, path in SHIPPED_COMPOSITIONS.items()}
    given = {kind: step_input(files.load_composition(path).body) for kind, path in chosen.items()}
    return {kind: (found, fn_input.parse(found)) for kind, found in given.items()}
