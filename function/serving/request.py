"""A request's bytes read: decoded, or the reason they cannot be, with the tag when it is readable.

gRPC would answer a request protobuf cannot decode with a status code and no word
of the cause; Crossplane would show only that. Here it becomes a Fatal result that
says what is wrong.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from google.protobuf import descriptor_pb2, descriptor_pool, message, message_factory

from function import errors

PROTOBUF_DEPTH_LIMIT = 100


def _meta_only() -> Any:
    """A message type holding only a request's meta (field 1).

    Everything else in the bytes is kept as unknown fields, which protobuf skips
    without descending into them, so the tag can be read even from a request too
    deeply nested to decode.
    """
    pool = descriptor_pool.Default()
    name = "function_asya/meta_only.proto"
    try:
        pool.FindFileByName(name)
    except KeyError:
        meta = descriptor_pb2.FieldDescriptorProto(
            name="meta",
            number=1,
            label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL,
            type=descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE,
            type_name=f".{fnv1.DESCRIPTOR.package}.RequestMeta",
        )
        pool.Add(
            descriptor_pb2.FileDescriptorProto(
                name=name,
                package="function_asya",
                dependency=[fnv1.DESCRIPTOR.name],
                message_type=[descriptor_pb2.DescriptorProto(name="MetaOnly", field=[meta])],
            )
        )
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("function_asya.MetaOnly"))


MetaOnly = _meta_only()


@dataclass(frozen=True)
class Undecodable:
    """A request protobuf could not decode: why, and its meta when that much was readable."""

    error: errors.InputError
    meta: fnv1.RequestMeta


def decode(data: bytes) -> fnv1.RunFunctionRequest | Undecodable:
    """Decode a request, or say why it cannot be decoded."""
    try:
        request: fnv1.RunFunctionRequest = fnv1.RunFunctionRequest.FromString(data)
    except message.DecodeError as exc:
        if "MaxDepth" in str(exc):
            error = errors.InputError(
                "cannot read the request: it nests deeper than protobuf's limit of "
                f"{PROTOBUF_DEPTH_LIMIT} levels (about 30 levels of YAML); a flavor's data "
                "or the actor's spec is nested too deeply"
            )
        else:
            error = errors.InputError(f"cannot read the request: {exc}")
        return Undecodable(error, _meta_of(data))
    return request


def _meta_of(data: bytes) -> fnv1.RequestMeta:
    try:
        meta: fnv1.RequestMeta = MetaOnly.FromString(data).meta
    except message.DecodeError:
        return fnv1.RequestMeta()
    return meta
