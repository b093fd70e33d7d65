"""Validate objects against the real Kubernetes schemas and third-party CRDs.

Kubernetes core objects validate for every user, through the schemas the
`kubernetes-validate` distribution packages (Kubernetes 1.37, strict). Third-party
CRDs (KEDA, provider AWS, Crossplane) are read from ../shared/schemas; a check
that needs one skips, saying so, when that folder is absent. CRD schemas are made
strict the way `kubectl apply --validate=strict` is: an unknown field is an error
unless the schema preserves unknown fields.
"""

from __future__ import annotations

import copy
import functools
import importlib.resources
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from referencing import Registry, Resource

from tests.support import ROOT, SHARED

SCHEMAS = SHARED / "schemas"
KUBERNETES_VERSION = "v1.37.0-local-strict"
KUBERNETES = (
    importlib.resources.files("kubernetes_validate") / "kubernetes-json-schema" / KUBERNETES_VERSION
)

CRD_FILES = {
    ("keda.sh/v1alpha1", "ScaledObject"): "keda/keda.sh_scaledobjects.yaml",
    ("keda.sh/v1alpha1", "TriggerAuthentication"): "keda/keda.sh_triggerauthentications.yaml",
    ("sqs.aws.upbound.io/v1beta1", "Queue"): "provider-upjet-aws/sqs.aws.upbound.io_queues.yaml",
    (
        "sqs.aws.m.upbound.io/v1beta1",
        "Queue",
    ): "provider-upjet-aws/sqs.aws.m.upbound.io_queues.yaml",
    **{
        (f"pubsub.gcp{group}upbound.io/{version}", kind): (
            f"provider-upjet-gcp/pubsub.gcp{group}upbound.io_{kind.lower()}s.yaml"
        )
        for group, version in ((".", "v1beta2"), (".m.", "v1beta1"))
        for kind in ("Topic", "Subscription")
    },
    (
        "apiextensions.crossplane.io/v1",
        "Composition",
    ): "crossplane/crds/apiextensions.crossplane.io_compositions.yaml",
    (
        "apiextensions.crossplane.io/v1",
        "CompositeResourceDefinition",
    ): "crossplane/crds/apiextensions.crossplane.io_compositeresourcedefinitions.yaml",
    (
        "apiextensions.crossplane.io/v2",
        "CompositeResourceDefinition",
    ): "crossplane/crds/apiextensions.crossplane.io_compositeresourcedefinitions.yaml",
    (
        "apiextensions.crossplane.io/v1beta1",
        "EnvironmentConfig",
    ): "crossplane/crds/apiextensions.crossplane.io_environmentconfigs.yaml",
    ("pkg.crossplane.io/v1", "Function"): "crossplane/crds/pkg.crossplane.io_functions.yaml",
    (
        "pkg.crossplane.io/v1beta1",
        "DeploymentRuntimeConfig",
    ): "crossplane/crds/pkg.crossplane.io_deploymentruntimeconfigs.yaml",
    (
        "meta.pkg.crossplane.io/v1",
        "Function",
    ): "crossplane/meta/meta.pkg.crossplane.io_functions.yaml",
}
# CRDs fetched from Go modules by `make e2e-tools` (it needs Go), not in ../shared.
BUILT_CRDS = ROOT / ".e2e"
BUILT_CRD_FILES = {
    ("monitoring.coreos.com/v1", "PodMonitor"): (
        "prometheus-operator-crds/monitoring.coreos.com_podmonitors.yaml"
    ),
}
KUBERNETES_FILES = {
    ("apps/v1", "Deployment"): "deployment-apps-v1.json",
    ("v1", "ServiceAccount"): "serviceaccount-v1.json",
    ("v1", "Secret"): "secret-v1.json",
    ("v1", "ConfigMap"): "configmap-v1.json",
    ("v1", "Pod"): "pod-v1.json",
    ("autoscaling/v2", "HorizontalPodAutoscaler"): "horizontalpodautoscaler-autoscaling-v2.json",
    ("rbac.authorization.k8s.io/v1", "ClusterRole"): "clusterrole-rbac-v1.json",
}


SKIP_REASON = (
    f"third-party CRDs (KEDA, provider AWS, Crossplane) are read from {SCHEMAS}, "
    "which is absent (../shared is not beside the project)"
)


def have_crds() -> bool:
    """Tell whether the third-party CRDs are available."""
    return SCHEMAS.is_dir()


def require_crds() -> None:
    """Skip the calling test when the third-party CRDs are not available."""
    if not have_crds():
        pytest.skip(SKIP_REASON)


def is_kubernetes(obj: dict[str, Any]) -> bool:
    """Tell whether an object is a Kubernetes core kind (validated for every user)."""
    return (obj.get("apiVersion", ""), obj.get("kind", "")) in KUBERNETES_FILES


def strict(schema: dict[str, Any]) -> dict[str, Any]:
    """Return an OpenAPI v3 CRD schema where unknown fields are errors."""
    out = copy.deepcopy(schema)

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if (
                "properties" in node
                and not node.get("x-kubernetes-preserve-unknown-fields")
                and "additionalProperties" not in node
            ):
                node["additionalProperties"] = False
            if node.get("nullable"):
                kind = node.get("type")
                if isinstance(kind, str):
                    node["type"] = [kind, "null"]
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(out)
    # Every object carries metadata, which CRD schemas leave loosely typed.
    out.setdefault("properties", {})["metadata"] = {"type": "object"}
    out["properties"].setdefault("apiVersion", {"type": "string"})
    out["properties"].setdefault("kind", {"type": "string"})
    return out


def crd_schema_from(crd: dict[str, Any], version: str) -> dict[str, Any]:
    """Return the strict schema of one version of a CRD object."""
    for candidate in crd["spec"]["versions"]:
        if candidate["name"] == version:
            return strict(candidate["schema"]["openAPIV3Schema"])
    raise KeyError(f"{crd['metadata']['name']} has no version {version}")


@functools.cache
def _crd_schema(path: str, version: str) -> dict[str, Any]:
    docs = [d for d in yaml.safe_load_all((SCHEMAS / path).read_text()) if d]
    return crd_schema_from(docs[0], version)


@functools.cache
def _kubernetes_registry() -> Registry:
    registry: Registry = Registry()
    # The kinds' own files refer to each other only through _definitions.json.
    for name in ("_definitions.json", *KUBERNETES_FILES.values()):
        contents = json.loads((KUBERNETES / name).read_text())
        registry = registry.with_resource(contents["$id"], Resource.from_contents(contents))
    return registry


def errors(obj: dict[str, Any], schema: dict[str, Any] | None = None) -> list[str]:
    """Return every schema violation of obj as `path: message` (empty when valid)."""
    key = (obj.get("apiVersion", ""), obj.get("kind", ""))
    if schema is not None:
        validator: jsonschema.protocols.Validator = jsonschema.Draft7Validator(schema)
    elif key in KUBERNETES_FILES:
        contents = json.loads((KUBERNETES / KUBERNETES_FILES[key]).read_text())
        validator = jsonschema.Draft202012Validator(contents, registry=_kubernetes_registry())
    elif key in CRD_FILES:
        require_crds()
        version = key[0].rsplit("/", 1)[-1]
        validator = jsonschema.Draft7Validator(_crd_schema(CRD_FILES[key], version))
    elif key in BUILT_CRD_FILES:
        path = BUILT_CRDS / BUILT_CRD_FILES[key]
        if not path.exists():
            pytest.skip(f"{path} is linked by make e2e-tools, which needs Go")
        crd = load_all(path)[0]
        validator = jsonschema.Draft7Validator(crd_schema_from(crd, key[0].rsplit("/", 1)[-1]))
    else:
        raise KeyError(f"no schema known for {key}")
    return [
        f"{'.'.join(str(p) for p in error.absolute_path) or '<root>'}: {error.message}"
        for error in validator.iter_errors(obj)
    ]


def load_all(path: Path) -> list[dict[str, Any]]:
    """Load every YAML document of a file."""
    return [d for d in yaml.safe_load_all(path.read_text()) if d]
