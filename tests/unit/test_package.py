"""The package, Composition and functions file are valid for Crossplane."""

from __future__ import annotations

import yaml

from function.models import input as fn_input
from tests import schemas
from tests.support import ROOT

INPUT_CRD = ROOT / "package" / "input" / "asya.fn.crossplane.io_inputs.yaml"


def test_every_input_default_validates_against_the_input_crd() -> None:
    crd = yaml.safe_load(INPUT_CRD.read_text())
    schema = schemas.crd_schema_from(crd, "v1beta1")
    dumped = fn_input.Input().model_dump(by_alias=True, mode="json")
    assert schemas.errors(dumped, schema) == []


def test_the_input_crd_rejects_an_unknown_key() -> None:
    crd = yaml.safe_load(INPUT_CRD.read_text())
    schema = schemas.crd_schema_from(crd, "v1beta1")
    assert schemas.errors({"aws": {"regoin": "x"}}, schema) != []


def test_package_metadata_is_a_valid_function_package() -> None:
    schemas.require_crds()
    [meta] = schemas.load_all(ROOT / "package" / "crossplane.yaml")
    assert (meta["apiVersion"], meta["kind"]) == ("meta.pkg.crossplane.io/v1", "Function")
    assert meta["metadata"]["name"] == "function-asya"
    assert schemas.errors(meta) == []


def test_every_package_object_besides_the_metadata_is_a_crd() -> None:
    # `crossplane xpkg build` refuses anything else under the package root.
    for path in (ROOT / "package").rglob("*.yaml"):
        for doc in schemas.load_all(path):
            if path.name != "crossplane.yaml":
                assert doc["kind"] == "CustomResourceDefinition", path


COMPOSITIONS = [
    *sorted((ROOT / "compositions").glob("*.yaml")),
    ROOT / "examples" / "composition.yaml",
    ROOT / "examples" / "v2" / "composition.yaml",
]


def test_every_composition_gives_function_asya_a_valid_input() -> None:
    crd = yaml.safe_load(INPUT_CRD.read_text())
    input_schema = schemas.crd_schema_from(crd, "v1beta1")
    steps = 0
    for path in COMPOSITIONS:
        for composition in schemas.load_all(path):
            for step in composition["spec"]["pipeline"]:
                if step["functionRef"]["name"] == "function-asya":
                    steps += 1
                    assert schemas.errors(step.get("input", {}), input_schema) == [], path
                    fn_input.parse(step.get("input", {}))
    assert steps >= len(COMPOSITIONS)
    for function in schemas.load_all(ROOT / "examples" / "functions.yaml"):
        assert function["metadata"]["name"] == "function-asya"


def test_compositions_and_functions_file_validate_against_crossplanes_crds() -> None:
    schemas.require_crds()
    documents = [doc for path in COMPOSITIONS for doc in schemas.load_all(path)]
    documents += schemas.load_all(ROOT / "examples" / "functions.yaml")
    assert [schemas.errors(doc) for doc in documents] == [[] for _ in documents]
