"""How deeply an actor's data may nest, so every message about it stays decodable.

protobuf refuses messages nested more than 100 levels deep (codec.nesting). A value `n` levels below the actor's `spec` travels about 3n + 5 levels deep in
the request, and the composed objects built from it come back in the next
request's observed state 5 map levels deeper still (`spec.forProvider.manifest.
spec.template.spec.containers[i]` instead of `spec.sidecars[i]`). Twenty levels
keep all of that under 100 with room to spare; real Kubernetes fields (pod
affinity terms, CSI volume attributes) use fewer than ten.
"""

from __future__ import annotations

from typing import Any

from function.codec import nesting
from function.resolve.paths import Item, Path

MAX_NESTING = 20


def too_deep(data: Any, limit: int = MAX_NESTING) -> Path | None:
    """Return the path to the first map or list nested more than `limit` levels, or None."""
    found = nesting.too_deep(data, limit)
    if found is None:
        return None
    return tuple(Item(None, key) if isinstance(key, int) else key for key in found)
