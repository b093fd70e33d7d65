"""The response cache's key: a digest of everything an answer depends on.

Crossplane tags each request with a SHA-256 of its content, serialised
deterministically before the tag is set (observed and desired state, Input,
context, credentials and any requirements declared up front). It computes the tag
once per step, before the requirements loop: every call of the loop carries the
first call's tag while what the loop fetched changes, and so does the context
(each call gets the context the previous one answered with); the capabilities sit
in the meta beside the tag. So a tagged request's key is its tag plus a digest of
those, read without decoding the rest: an answer kept for an actor costs the same
to find whatever the size of its observed state. A request without a tag (older
Crossplane, `crossplane render` before v2.3, other clients) is keyed on its whole
content. Different Crossplane builds may tag the same content differently: that
costs a miss, never a wrong answer.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from crossplane.function.proto.v1 import run_function_pb2 as fnv1

from function import cache
from function.serving.request import Received

KEY_BYTES = 32  # a SHA-256 digest


def of_tag(received: Received) -> bytes | None:
    """The key of a tagged request: its tag, capabilities, context and what was fetched.

    None for an untagged request.
    """
    untagged = received.untagged
    if untagged is None or not untagged.meta.tag:
        return None
    return cache.digest_of(
        [
            b"tag",
            untagged.meta.tag.encode(),
            ",".join(str(c) for c in untagged.meta.capabilities).encode(),
            # Whether the context is there at all, and what it holds.
            b"context" if untagged.HasField("context") else b"",
            untagged.context.SerializeToString(deterministic=True),
            *_entries(untagged.extra_resources),
            b"required",
            *_entries(untagged.required_resources),
            b"schemas",
            *_entries(untagged.required_schemas),
        ]
    )


def _entries(fetched: Any) -> Iterator[bytes]:
    for key in sorted(fetched):
        yield key.encode()
        # Deterministic: map entries in key order (Crossplane's Go marshaller's order is random).
        yield fetched[key].SerializeToString(deterministic=True)


def of_content(request: fnv1.RunFunctionRequest) -> bytes:
    """The key of a request without a tag: a digest of its whole content."""
    tag = request.meta.tag
    request.meta.tag = ""
    content: bytes = request.SerializeToString(deterministic=True)
    request.meta.tag = tag
    return cache.digest_of([b"content", content])
