"""What the real API server says of rendered objects: server-side apply, dry-run, strict fields."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

from function.validate import keda_checks, kube_schemas, resources
from tests.cluster import rig

# Kinds a render prints that are not composed objects.
NOT_COMPOSED = {"Result", "Context"}
XR_KINDS = {"XAsyncActor", "AsyncActor"}


def _as_applied(document: dict[str, Any]) -> dict[str, Any]:
    """The object as Crossplane would send it.

    A render's owner references point at an XR with no uid (the XR was never
    stored): Crossplane fills the uid in; here the reference is left out instead.
    An object a function leaves unnamed Crossplane names: here, a fixed name.
    """
    body = copy.deepcopy(document)
    meta = body.setdefault("metadata", {})
    meta.pop("ownerReferences", None)
    meta.setdefault("name", meta.get("generateName", "composed-") + "rig")
    return body


class DryRun:
    """Applies objects with dryRun=All and says what the server refused, one line each."""

    def __init__(self, kube: rig.Kube) -> None:
        self.kube = kube
        self._namespaces: set[str] = set()

    def _namespace(self, name: str | None) -> None:
        if name and name not in self._namespaces:
            self.kube.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
            self._namespaces.add(name)

    def refusals(self, documents: list[dict[str, Any]], namespace: str = "default") -> list[str]:
        """Every composed object (and each provider-kubernetes Object's manifest) the server refuses.

        A namespaced object without a namespace goes where Crossplane puts it, the
        XR's `namespace` (the v2 form).
        """
        found: list[str] = []
        for document in documents:
            if document.get("kind") in NOT_COMPOSED | XR_KINDS:
                continue
            found.extend(self.refused(document, namespace=namespace))
            manifest = document.get("spec", {}).get("forProvider", {}).get("manifest")
            if document["apiVersion"].startswith("kubernetes.") and manifest:
                found.extend(
                    self.refused(manifest, f"{document['metadata'].get('name')}: manifest ")
                )
        return found

    def refused(
        self, document: dict[str, Any], where: str = "", namespace: str = "default"
    ) -> list[str]:
        """The server's refusal of one object, or nothing."""
        body = _as_applied(document)
        if self.kube.namespaced(body["apiVersion"], body["kind"]):
            body["metadata"].setdefault("namespace", namespace)
        self._namespace(body["metadata"].get("namespace"))
        try:
            self.kube.apply(body, dry_run=True)
        except rig.KubeError as refusal:
            name = body["metadata"].get("name")
            return [f"{where}{body['kind']} {name}: {refusal}"]
        return []


@contextmanager
def api_server_rules_off() -> Iterator[None]:
    """The gate without the rules it mirrors of the API server and KEDA: what is left is the platform's.

    (KEDA's rules are judged by KEDA's webhook in test_keda_webhook; the generated pod
    parts here never reach them, so a refusal of theirs would show as a false one.)
    """
    with (
        mock.patch.object(kube_schemas, "check", return_value=None),
        mock.patch.object(resources, "check", return_value=None),
        mock.patch.object(keda_checks, "check", return_value=None),
    ):
        yield
