"""The base of the Input's sections, and the field types its names and paths are held to."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field
from pydantic.alias_generators import to_camel

from function.models import names, pod


def object_name(value: Any) -> Any:
    """Refuse a string that is no object name; pass anything else on (pydantic refuses it)."""
    if isinstance(value, str) and not names.is_object_name(value):
        raise ValueError(f"{value!r} is not {names.OBJECT_NAME_WORDS}")
    return value


def _key(value: Any) -> Any:
    if isinstance(value, str) and not names.is_config_key(value):
        raise ValueError(f"{value!r} is not {names.CONFIG_KEY_WORDS}")
    return value


def _image(value: Any) -> Any:
    if isinstance(value, str) and not names.is_image(value):
        raise ValueError(f"not {names.IMAGE_WORDS}")
    return value


def _absolute_path(value: Any) -> Any:
    if isinstance(value, str) and not (value.startswith("/") and pod.normal_path(value) != "/"):
        raise ValueError(f"{value!r} is not an absolute path below /")
    return value


# Names of objects the rendered ones refer to, and keys in them: the API server refuses
# the rendered object (or the pods never start) otherwise. Each says why in words first;
# the pattern is for the Input CRD.
ObjectName = Annotated[
    str,
    Field(pattern=names.OBJECT_NAME, max_length=names.MAX_OBJECT_NAME),
    BeforeValidator(object_name),
]
OptionalObjectName = Annotated[
    str,
    Field(pattern=f"^$|{names.OBJECT_NAME}", max_length=names.MAX_OBJECT_NAME),
    BeforeValidator(lambda value: value if value == "" else object_name(value)),
]
KeyName = Annotated[str, Field(pattern=r"^[-._a-zA-Z0-9]+$"), BeforeValidator(_key)]
Image = Annotated[str, Field(pattern=names.IMAGE), BeforeValidator(_image)]
AbsolutePath = Annotated[str, Field(pattern=r"^/."), BeforeValidator(_absolute_path)]


class Settings(BaseModel):
    """Base for every Input section: camelCase keys, unknown keys rejected, immutable, strict."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True, strict=True
    )
