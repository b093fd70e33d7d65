"""A request's bytes read: its meta for the cache's key, whole to answer, or why they cannot be.

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
from function.codec import nesting


def _part_of_request(name: str, fields: tuple[str, ...]) -> Any:
    """A message type reading only some of a RunFunctionRequest's fields.

    The others are kept as unknown fields, which protobuf skips without descending
    into them: reading only these costs only what they hold, and works even on a
    request too deeply nested to decode whole.
    """
    pool = descriptor_pool.Default()
    package = "function_asya"
    try:
        pool.FindFileByName(f"{package}/{name}.proto")
    except KeyError:
        whole = descriptor_pb2.DescriptorProto()
        fnv1.RunFunctionRequest.DESCRIPTOR.CopyToProto(whole)
        nested = f".{fnv1.RunFunctionRequest.DESCRIPTOR.full_name}."
        part = descriptor_pb2.DescriptorProto(name=name)
        for field in whole.field:
            if field.name not in fields:
                continue
            copied = part.field.add()
            copied.CopyFrom(field)
            # A proto3 `optional` field's synthetic oneof stays behind: a message
            # field has presence without it.
            copied.ClearField("oneof_index")
            copied.ClearField("proto3_optional")
            # A map field's entry type is nested in the message: it moves along.
            if field.type_name.startswith(nested):
                entry = field.type_name.removeprefix(nested)
                copied.type_name = f".{package}.{name}.{entry}"
                part.nested_type.add().CopyFrom(
                    next(t for t in whole.nested_type if t.name == entry)
                )
        pool.Add(
            descriptor_pb2.FileDescriptorProto(
                name=f"{package}/{name}.proto",
                package=package,
                dependency=[fnv1.DESCRIPTOR.name],
                message_type=[part],
            )
        )
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{package}.{name}"))


MetaOnly = _part_of_request("MetaOnly", ("meta",))
# What Crossplane's tag does not cover: what the requirements loop changes after the
# tag was computed (question.py says why).
Untagged = _part_of_request(
    "Untagged", ("context", "extra_resources", "required_resources", "required_schemas")
)


@dataclass(frozen=True)
class Received:
    """A request's bytes as gRPC handed them over, and its meta, which holds the tag.

    The whole request is decoded only when it must be answered anew.
    """

    data: bytes
    # None when even that cannot be read: decoding the whole says why.
    meta: fnv1.RequestMeta | None

    @property
    def tag(self) -> str:
        """The request's tag ('' when none or unreadable)."""
        return str(self.meta.tag) if self.meta is not None else ""


def receive(data: bytes) -> Received:
    """Take a request's bytes in, reading only its meta."""
    try:
        meta: fnv1.RequestMeta = MetaOnly.FromString(data).meta
    except message.DecodeError:
        return Received(data, None)
    return Received(data, meta)


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
                f"{nesting.PROTOBUF_MAX_DEPTH} levels (about 30 levels of YAML); a flavor's data "
                "or the actor's spec is nested too deeply"
            )
        else:
            error = errors.InputError(f"cannot read the request: {exc}")
        return Undecodable(error, _meta_of(data))
    return request


def _meta_of(data: bytes) -> fnv1.RequestMeta:
    meta = receive(data).meta
    return meta if meta is not None else fnv1.RequestMeta()
