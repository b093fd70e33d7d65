"""The response cache's key: a digest of everything an answer depends on."""

from __future__ import annotations

from crossplane.function.proto.v1 import run_function_pb2 as fnv1

from function import cache

KEY_BYTES = 32  # a SHA-256 digest


def key(request: fnv1.RunFunctionRequest) -> bytes:
    """A digest of the request's content without its tag.

    Deterministic serialisation orders map entries (Crossplane's Go marshaller does
    not), so the same content always gives the same key.
    """
    tag = request.meta.tag
    request.meta.tag = ""
    content: bytes = request.SerializeToString(deterministic=True)
    request.meta.tag = tag
    return cache.digest(content)
