"""No traceback, ever: `render` meets malformed input with a short error naming the field.

Each example below takes one input file of a working render (the XR, the Composition,
a flavor, an observed resource), replaces one value somewhere in it with something of
another shape, and renders: the command either renders or exits 1 with one
`function-asya: error:` line. An exception escaping the command fails the test with
its traceback; the command's last-resort "internal error" line fails it too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests import support

EXAMPLE = support.ROOT / "examples"
INPUTS = {
    "xr": EXAMPLE / "image-enhancer" / "xr.yaml",
    "composition": EXAMPLE / "composition.yaml",
    "flavor": EXAMPLE / "flavors" / "gpu-t4.yaml",
    "observed": EXAMPLE / "image-enhancer" / "observed" / "ready.yaml",
}


def _deep(levels: int) -> Any:
    value: Any = "leaf"
    for _ in range(levels):
        value = {"a": value}
    return value


JUNK = st.sampled_from(
    [
        *(None, [], [1, 2], {}, "", "x", 0, -1, 2**40, True, 1.5, [None], _deep(40)),
        # What YAML holds and JSON does not: bytes (!!binary), a set, an infinite number.
        *(b"hi", {"a"}, float("inf"), {1: "x"}),
    ]
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*prefix, index))
    return found


def _replaced(value: Any, path: tuple[Any, ...], junk: Any) -> Any:
    if not path:
        return junk
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {k: _replaced(v, rest, junk) if k == head else v for k, v in value.items()}
    return [_replaced(v, rest, junk) if i == head else v for i, v in enumerate(value)]


def _render(tmp: Path, which: str, documents: list[Any]) -> tuple[int, str]:
    changed = tmp / f"{which}.yaml"
    changed.write_text(yaml.safe_dump_all(documents))
    paths = {name: str(changed if name == which else path) for name, path in INPUTS.items()}
    flavors = tmp / "flavors"
    flavors.mkdir(exist_ok=True)
    for path in (EXAMPLE / "flavors").glob("*.yaml"):
        source = changed if which == "flavor" and path == INPUTS["flavor"] else path
        (flavors / path.name).write_text(source.read_text())
    result = support.render_cli(
        paths["xr"],
        paths["composition"],
        str(EXAMPLE / "functions.yaml"),
        "--required-resources",
        str(flavors),
        "--observed-resources",
        paths["observed"],
    )
    return result.returncode, result.stderr


@st.composite
def _mutations(draw: st.DrawFn) -> tuple[str, list[Any]]:
    which = draw(st.sampled_from(sorted(INPUTS)))
    documents = list(yaml.safe_load_all(INPUTS[which].read_text()))
    index = draw(st.integers(0, len(documents) - 1))
    path = draw(st.sampled_from(_paths(documents[index])))
    documents[index] = _replaced(documents[index], path, draw(JUNK))
    return which, documents


@pytest.mark.slow
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(_mutations())
def test_malformed_input_gets_an_error_not_a_traceback(
    tmp_path: Path, mutation: tuple[str, list[Any]]
) -> None:
    which, documents = mutation
    status, stderr = _render(tmp_path, which, documents)
    assert status in (0, 1), stderr
    if status == 1:
        assert stderr.startswith("function-asya: error: "), stderr
        assert "internal error" not in stderr, stderr


def _xr(spec_yaml: str) -> str:
    return (
        "apiVersion: asya.sh/v1alpha1\nkind: XAsyncActor\nmetadata:\n  name: a\n"
        "  labels: {crossplane.io/claim-namespace: ns}\n" + spec_yaml
    )


@pytest.mark.parametrize(
    ("xr", "error"),
    [
        (_xr("spec:\n"), "spec: must be a map, not null"),
        (_xr("spec: [1, 2]\n"), "spec: must be a map, not a list"),
        (
            _xr("spec:\n  actor: a\n  resources: " + "{a: " * 32 + "1" + "}" * 32 + "\n"),
            ": nests more than 30 levels deep",
        ),
        ("apiVersion: asya.sh/v1alpha1\nkind: XAsyncActor\nmetadata:\nspec: {}\n", "metadata.name"),
        (_xr("spec:\n  actor: a\n  image: !!binary aGk=\n"), "spec.image: not a value JSON holds"),
    ],
    ids=["empty spec", "spec a list", "32 levels", "no metadata", "bytes"],
)
def test_each_known_crash_is_an_error_naming_the_field(tmp_path: Path, xr: str, error: str) -> None:
    path = tmp_path / "xr.yaml"
    path.write_text(xr)
    result = support.render_cli(
        str(path), str(INPUTS["composition"]), str(EXAMPLE / "functions.yaml")
    )
    assert result.returncode == 1
    assert result.stderr.startswith("function-asya: error: cannot load ")
    assert error in result.stderr
    assert ": spec.resources.a.a" in result.stderr or "levels" not in error
    assert "\n" not in result.stderr.rstrip("\n")
