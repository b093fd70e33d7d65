"""How deeply data may nest on its way through protobuf.

protobuf's decoders refuse messages nested more than 100 levels deep (Python's upb
decoder always; raising that limit lets a small message crash the process), and a
level of YAML costs about three in a Struct (the Struct, its map entry, a Value).
"""

from __future__ import annotations

from typing import Any

PROTOBUF_MAX_DEPTH = 100


def too_deep(data: Any, limit: int) -> list[str | int] | None:
    """The keys down to the first map or list nested more than `limit` levels, or None."""
    found = _search(data, limit)
    return None if found is None else found[::-1]


def _search(value: Any, left: int) -> list[str | int] | None:
    # The path is built on the way back, and only for the one value found.
    if isinstance(value, dict):
        items: Any = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return None
    if left < 0:
        return []
    for key, item in items:
        found = _search(item, left - 1)
        if found is not None:
            found.append(key if isinstance(key, int) else str(key))
            return found
    return None
