"""Build the Input CRD published in package/input/ from the Input model."""

from __future__ import annotations

from typing import Any

from function.models import input as fn_input

GROUP = "asya.fn.crossplane.io"


def _schema(node: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """Turn a pydantic JSON schema node into a structural OpenAPI v3 schema."""
    if "$ref" in node:
        return _schema(defs[node["$ref"].rsplit("/", 1)[-1]], defs)
    out: dict[str, Any] = {}
    if node.get("description"):
        out["description"] = node["description"]
    kind = node.get("type")
    if "enum" in node:
        out["type"] = "string"
        out["enum"] = list(node["enum"])
    elif "const" in node:
        out["type"] = "string"
        out["enum"] = [node["const"]]
    elif kind == "object" and "properties" in node:
        out["type"] = "object"
        out["properties"] = {k: _schema(v, defs) for k, v in node["properties"].items()}
    elif kind == "object":
        out["type"] = "object"
        extra = node.get("additionalProperties")
        if isinstance(extra, dict):
            out["additionalProperties"] = _schema(extra, defs)
    else:
        out["type"] = kind
        for key in ("minimum", "maximum", "minLength", "pattern"):
            if key in node:
                out[key] = node[key]
    return out


def crd() -> dict[str, Any]:
    """Return the CustomResourceDefinition of the function's Input."""
    schema = fn_input.Input.model_json_schema(by_alias=True)
    defs = schema.get("$defs", {})
    properties = {k: _schema(v, defs) for k, v in schema["properties"].items()}
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


if __name__ == "__main__":
    import yaml

    print("# Generated from function/models/input.py: python -m function.models.input_crd")
    print(yaml.safe_dump(crd(), sort_keys=False), end="")
