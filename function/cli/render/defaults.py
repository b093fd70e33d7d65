"""Apply an XRD's schema defaults to an XR, as the API server would (`render --xrd`)."""

from __future__ import annotations

import copy
from typing import Any

from function.cli.render.errors import RenderError
from function.cli.render.files import Document


def _map(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def check_fits(xrd: Document, xr: Document) -> None:
    """Refuse an XRD that could not define the XR: another kind, or another scope.

    A v1 XRD (and a v2 one of scope `Cluster` or `LegacyCluster`) defines a
    cluster-scoped XR, which has no namespace; a v2 XRD is `Namespaced` by default,
    and its XRs must have one.

    Raises:
        RenderError: naming what does not fit.
    """
    spec = _map(xrd.body.get("spec"))
    names = _map(spec.get("names"))
    if names.get("kind") != xr.kind:
        raise RenderError(f"the XRD defines kind {names.get('kind')!r}, not the XR's {xr.kind!r}")
    default = "Namespaced" if xrd.api_version.endswith("/v2") else "LegacyCluster"
    scope = spec.get("scope") or default
    namespace = xr.metadata.get("namespace")
    if scope == "Namespaced" and not namespace:
        raise RenderError(
            f"the XRD's scope is Namespaced: XR {xr.name!r} needs a metadata.namespace"
        )
    if scope != "Namespaced" and namespace:
        raise RenderError(
            f"the XRD's scope is {scope}: XR {xr.name!r} cannot have a metadata.namespace "
            f"({namespace!r})"
        )


def schema_for(xrd: Document, api_version: str) -> dict[str, Any]:
    """Return the openAPIV3Schema of the XRD version matching the XR's apiVersion.

    Raises:
        RenderError: in crossplane render's words, when the XRD has no such version.
    """
    spec = xrd.body.get("spec") or {}
    for candidate in spec.get("versions") or []:
        if f"{spec.get('group')}/{candidate.get('name')}" == api_version:
            schema = (candidate.get("schema") or {}).get("openAPIV3Schema")
            return schema if isinstance(schema, dict) else {}
    raise RenderError(f"the specified API version '{api_version}' does not exist in the XRD")


def apply(schema: dict[str, Any], value: Any) -> Any:
    """Return a copy of value with defaults filled in where its parent object exists.

    This is structural-schema defaulting: a nested default applies only when the
    object holding it is present, exactly as on a real API server.
    """
    if isinstance(value, dict):
        result = {key: copy.deepcopy(item) for key, item in value.items()}
        properties = schema.get("properties") or {}
        for key, sub_schema in properties.items():
            # A null the schema does not allow counts as absent (isNonNullableNull).
            absent = key not in result or (result[key] is None and not sub_schema.get("nullable"))
            if absent and "default" in sub_schema:
                result[key] = copy.deepcopy(sub_schema["default"])
            if key in result:
                result[key] = apply(sub_schema, result[key])
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            for key, item in result.items():
                if key not in properties:
                    result[key] = apply(extra, item)
        return result
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [apply(schema["items"], item) for item in value]
    return value
