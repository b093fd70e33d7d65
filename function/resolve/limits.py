"""How deeply user data may nest, so every message about it stays decodable.

protobuf's decoders refuse messages nested more than 100 levels deep (Python's
upb decoder always; raising that limit lets a small message crash the process).
A value `n` levels below the actor's `spec` travels about 3n + 5 levels deep in
the request, and the composed objects built from it come back in the next
request's observed state 5 map levels deeper still (`spec.forProvider.manifest.
spec.template.spec.containers[i]` instead of `spec.sidecars[i]`). Twenty levels
keep all of that under 100 with room to spare; real Kubernetes fields (pod
affinity terms, CSI volume attributes) use fewer than ten.
"""

from __future__ import annotations

from typing import Any

from function.resolve.paths import Item, Path

MAX_NESTING = 20


def too_deep(data: Any, limit: int = MAX_NESTING) -> Path | None:
    """Return the path to the first map or list nested more than `limit` levels, or None."""
    found = _search(data, limit)
    if found is None:
        return None
    return tuple(Item(None, key) if isinstance(key, int) else key for key in reversed(found))


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
