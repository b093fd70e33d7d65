"""Build the Input CRD published in package/input/ from the Input model."""

from __future__ import annotations

from typing import Any

from function.models import crd_schema
from function.models import input as fn_input

GROUP = "asya.fn.crossplane.io"


def crd() -> dict[str, Any]:
    """Return the CustomResourceDefinition of the function's Input."""
    properties = crd_schema.of(fn_input.Input.model_json_schema(by_alias=True))["properties"]
    properties["metadata"] = {"type": "object"}
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"inputs.{GROUP}"},
        "spec": {
            "group": GROUP,
            "names": {
                "categories": ["crossplane"],
                "kind": "Input",
                "listKind": "InputList",
                "plural": "inputs",
                "singular": "input",
            },
            "scope": "Namespaced",
            "versions": [
                {
                    "name": "v1beta1",
                    "served": True,
                    "storage": True,
                    "schema": {
                        "openAPIV3Schema": {
                            "description": "Input configures function-asya for one Composition step. "
                            "Every field has a default, so an empty Input works.",
                            "type": "object",
                            "properties": properties,
                        }
                    },
                }
            ],
        },
    }
