"""A model's JSON schema becomes a structural one: every rule said, or an error, never dropped."""

from __future__ import annotations

from typing import Annotated, Any

import pytest
from pydantic import BaseModel, Field

from function.models import crd_schema


class Inner(BaseModel):
    """The inner part."""

    size: int = Field(1, ge=0, le=9)


class Outer(BaseModel):
    """The outer part."""

    name: str = Field(min_length=1, pattern="^[a-z]+$", description="A name.")
    inner: Inner | None = Field(None, description="Said by the field.")
    plain: Inner = Field(default_factory=Inner)
    tags: list[Annotated[str, Field(max_length=3)]] = Field(default_factory=list, max_length=2)
    labels: dict[str, str] = Field(default_factory=dict)
    anything: dict[str, Any] = Field(default_factory=dict)
    kept: str = Field("x", json_schema_extra=crd_schema.cel("self != 'y'", "not y"))


def test_a_model_becomes_a_structural_schema() -> None:
    want = {
        "description": "The outer part.",
        "type": "object",
        "properties": {
            "name": {
                "description": "A name.",
                "type": "string",
                "minLength": 1,
                "pattern": "^[a-z]+$",
            },
            "inner": {
                "description": "Said by the field.",
                "type": "object",
                "properties": {"size": {"type": "integer", "minimum": 0, "maximum": 9}},
            },
            "plain": {
                "description": "The inner part.",
                "type": "object",
                "properties": {"size": {"type": "integer", "minimum": 0, "maximum": 9}},
            },
            "tags": {"type": "array", "items": {"type": "string", "maxLength": 3}, "maxItems": 2},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "anything": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
            "kept": {
                "type": "string",
                "x-kubernetes-validations": [{"rule": "self != 'y'", "message": "not y"}],
            },
        },
        "required": ["name"],
    }
    got = crd_schema.of(Outer.model_json_schema(by_alias=True))
    assert got == want, "-want, +got"


class Int64(BaseModel):
    """Bounds an int64 has anyway."""

    seconds: int = Field(0, ge=-(2**63), le=2**63 - 1)
    replicas: int = Field(1, ge=1, le=2**31 - 1)


def test_a_bound_the_api_server_cannot_read_as_an_integer_is_left_to_the_model() -> None:
    properties = crd_schema.of(Int64.model_json_schema())["properties"]
    assert properties["seconds"] == {"type": "integer"}
    assert properties["replicas"] == {"type": "integer", "minimum": 1, "maximum": 2**31 - 1}


class Unsaid(BaseModel):
    """A rule a structural schema has no word for."""

    tags: set[str] = Field(default_factory=set)


def test_a_rule_the_schema_cannot_say_is_an_error_not_dropped() -> None:
    with pytest.raises(ValueError, match="uniqueItems"):
        crd_schema.of(Unsaid.model_json_schema(by_alias=True))
