"""The kinds of plain data a Struct carries, named the way every message names them."""

from __future__ import annotations

from typing import Any


def kind_of(value: Any) -> str:
    """Name a plain value's kind as messages do: `a map`, `a list`, ..., `null`."""
    if isinstance(value, dict):
        return "a map"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "null"
