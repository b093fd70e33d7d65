"""The base of every section of the AsyncActor spec."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class SpecSection(BaseModel):
    """Base for spec sections: camelCase keys, unknown keys rejected, immutable, strict.

    Strict: a string or a boolean where an integer belongs (`replicas: "3"`,
    `maxReplicaCount: true`) is refused, never coerced, so what is rendered and
    what is handed on to later steps are the same typed values. Keys are read by
    their XRD (camelCase) names only: the merge rules are keyed on those, and a
    `volume_mounts` would escape them; it is an unknown field like any other.
    Together these keep a validated spec's data exactly as it was given.
    """

    model_config = ConfigDict(alias_generator=to_camel, extra="forbid", frozen=True, strict=True)
