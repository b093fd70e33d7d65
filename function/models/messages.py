"""What a model's error says, in the project's words: one translation for the spec and the Input."""

from __future__ import annotations

from pydantic_core import ErrorDetails

from function.models import names


def in_words(error: ErrorDetails) -> str:
    """A pydantic error's message: validators' own words, the naming rules' in words too."""
    if error["type"] == "extra_forbidden":
        return "unknown field"
    if error["type"] == "value_error":  # a validator's own words, without pydantic's prefix
        return error["msg"].removeprefix("Value error, ")
    pattern = str(error.get("ctx", {}).get("pattern"))
    if error["type"] == "string_pattern_mismatch" and pattern in names.PATTERN_WORDS:
        return names.PATTERN_WORDS[pattern]
    return error["msg"]
