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

from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from google.protobuf import message

from function import cache
from function.codec import canonical
from function.serving.request import Received, Untagged

KEY_BYTES = 32  # a SHA-256 digest


def of_tag(received: Received) -> bytes | None:
    """The key of a tagged request: its tag, capabilities, context and what was fetched.

    None for an untagged request, or one whose fetched part cannot be read.
    """
    meta = received.meta
    if meta is None or not meta.tag:
        return None
    try:
        fetched = _fetched(received.data)
    except (ValueError, message.DecodeError):
        return None  # decoding the whole request says why
    return cache.digest_of(
        [b"tag", meta.tag.encode(), ",".join(str(c) for c in meta.capabilities).encode(), fetched]
    )


def _fetched(data: bytes) -> bytes:
    # The context and what was fetched, every map's entries sorted: Crossplane's Go
    # marshaller writes them in a random order (the tag covers the rest).
    return canonical.canonical(data, Untagged)


def of_content(request: fnv1.RunFunctionRequest) -> bytes:
    """The key of a request without a tag: a digest of its whole content."""
    tag = request.meta.tag
    request.meta.tag = ""
    content: bytes = request.SerializeToString(deterministic=True)
    request.meta.tag = tag
    return cache.digest_of([b"content", content])
