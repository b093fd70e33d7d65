"""The C codec takes what its stub (`_structwire.pyi`) says it takes, and nothing else.

The stub names every function and constant the module has. Where typing cannot say
it, the stub's comments do, and these tests hold the module to them: the encoder
writes exactly a dict of exact JSON types (a subclass may change what it reads, so it
is refused, naming its type); a key may be a str subclass, written as its text, as
protobuf's API writes it; bytes are read from bytes or a bytes subclass.
"""

import ast
from collections import OrderedDict
from pathlib import Path
from typing import Any

import pytest
from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from google.protobuf import struct_pb2

from function.codec import canonical, structs
from tests.unit.conftest import NOT_BUILT

needs_c = pytest.mark.skipif(not structs.accelerated(), reason=NOT_BUILT)

STUB = Path(structs.__file__).with_name("_structwire.pyi")


class Name(str):
    __slots__ = ()


class Mapping(dict[str, Any]):
    pass


class Data(bytes):
    pass


def _codec() -> Any:
    codec = structs.codec()
    assert codec is not None
    return codec


def _stubbed() -> set[str]:
    tree = ast.parse(STUB.read_text())
    names = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


@needs_c
def test_the_stub_names_everything_the_module_has() -> None:
    public = {name for name in vars(_codec()) if not name.startswith("__")}
    assert _stubbed() == public


@needs_c
@pytest.mark.parametrize(
    ("mapping", "name"), [(Mapping(a=1), "Mapping"), (OrderedDict(a=1), "collections.OrderedDict")]
)
def test_the_encoder_takes_exactly_a_dict(mapping: dict[str, Any], name: str) -> None:
    with pytest.raises(TypeError, match=f"written from a dict, not {name}"):
        _codec().encode(mapping)
    with pytest.raises(TypeError, match=f"cannot put a {name} into a protobuf Struct"):
        _codec().encode({"nested": [mapping]})


@needs_c
def test_the_encoder_refuses_a_str_subclass_as_a_value() -> None:
    with pytest.raises(TypeError, match="cannot put a Name into a protobuf Struct"):
        _codec().encode({"a": Name("x")})


def test_a_str_subclass_key_is_written_as_its_text(codec: str) -> None:
    written = struct_pb2.Struct.FromString(structs.encode({Name("key"): {Name("n"): None}}))
    assert written == struct_pb2.Struct.FromString(structs.encode({"key": {"n": None}}))
    assert structs.plain(written) == {"key": {"n": None}}


@needs_c
def test_the_decoder_reads_bytes_and_bytes_subclasses_only() -> None:
    data = structs.encode({"a": [1, "b"]})
    assert _codec().decode(Data(data)) == {"a": [1, "b"]}
    assert _codec().decode_value(Data(b"\x1a\x01x")) == "x"
    for other in (bytearray(data), memoryview(data), "text"):
        with pytest.raises(TypeError):
            _codec().decode(other)
        with pytest.raises(TypeError):
            _codec().decode_value(other)


@needs_c
def test_canonical_takes_bytes_and_a_list_layout() -> None:
    data = fnv1.RunFunctionRequest(context={"b": 1, "a": 2}).SerializeToString()
    layout = canonical.layout(fnv1.RunFunctionRequest.DESCRIPTOR)
    assert _codec().canonical(Data(data), layout) == _codec().canonical(data, layout)
    with pytest.raises(TypeError):
        _codec().canonical(data, tuple(layout))
    with pytest.raises(TypeError):
        _codec().canonical(bytearray(data), layout)
