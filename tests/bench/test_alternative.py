"""The alternative the bench measures renders what function-asya renders, by the real CLI.

bench/go-templating/composition.yaml (function-go-templating, then function-auto-ready)
and examples/composition.yaml (function-asya) rendered by the real `crossplane render`
(Crossplane core as its engine, every function a Development runtime) for the example
actor at three stages of its life: the composed resources are the same, field for field.
So are the v2 forms (composition-v2.yaml and examples/v2/composition.yaml, which the
fleet-rig phase runs), but for the two marks function-asya puts on the Deployment.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from bench import servers
from tests import support
from tests.cluster import rig

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("go_functions")]

ALTERNATIVE = support.ROOT / "bench" / "go-templating"
# form: the example actor, its Composition with function-asya, the alternative's, the XRD
FORMS = {
    "v1": (
        "examples/image-enhancer",
        "examples/composition.yaml",
        ALTERNATIVE / "composition.yaml",
        "xrd/xasyncactors.asya.sh.yaml",
    ),
    "v2": (
        "examples/v2/image-enhancer",
        "examples/v2/composition.yaml",
        ALTERNATIVE / "composition-v2.yaml",
        "xrd/asyncactors.asya.sh.v2.yaml",
    ),
}
STAGES = {
    "v1": ("created", "queue-no-url", "ready"),
    "v2": ("queue-creating", "queue-no-url", "ready"),
}
# What function-asya's v2 Deployment carries and a template cannot compute (digests of
# what it rendered from: status/accepted.py).
MARKS = ("asya.sh/rendered", "asya.sh/rendered-from")


@pytest.fixture(scope="module")
def addresses() -> Iterator[dict[str, str]]:
    """function-asya and the alternative's two functions, served without TLS."""
    if missing := [
        tool for tool in ("crossplane", "crossplane-core") if not (rig.BIN / tool).exists()
    ]:
        pytest.skip(
            f"the real crossplane CLI is not built ({', '.join(missing)} missing from .e2e/bin): "
            "`make e2e-tools` builds it, and needs Go"
        )
    started = {name: servers.start(name) for name in servers.GO_FUNCTIONS}
    try:
        with support.serving("--insecure") as served:
            yield {name: address for name, (_, address, _) in started.items()} | {
                "function-asya": served.address
            }
    finally:
        for process, _, _ in started.values():
            servers.stop(process)


def render(
    form: str, composition: str | Path, functions: Path, stage: str, *extra: str
) -> dict[str, Any]:
    """The composed resources the real CLI prints, by composition resource name."""
    actor = FORMS[form][0]
    done = subprocess.run(
        [
            str(rig.BIN / "crossplane"),
            "render",
            f"{actor}/xr.yaml",
            str(composition),
            str(functions),
            "-o",
            f"{actor}/observed/{stage}.yaml",
            "--crossplane-binary",
            str(rig.BIN / "crossplane-core"),
            *extra,
        ],
        capture_output=True,
        text=True,
        cwd=support.ROOT,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return {
        doc["metadata"]["annotations"]["crossplane.io/composition-resource-name"]: doc
        for doc in yaml.safe_load_all(done.stdout)
        if doc and doc["kind"] not in ("XAsyncActor", "AsyncActor", "Result")
    }


def development(functions: Path, addresses: dict[str, str], out: Path) -> Path:
    """A Functions file whose every function is dialled at its address."""
    documents = [d for d in yaml.safe_load_all(functions.read_text()) if d]
    for function in documents:
        function["metadata"]["annotations"] = {
            "render.crossplane.io/runtime": "Development",
            "render.crossplane.io/runtime-development-target": addresses[
                function["metadata"]["name"]
            ],
        }
    out.write_text(yaml.safe_dump_all(documents))
    return out


@pytest.mark.parametrize(
    ("form", "stage"), [(form, stage) for form, stages in STAGES.items() for stage in stages]
)
def test_the_alternative_composes_what_function_asya_composes(
    form: str, stage: str, addresses: dict[str, str], tmp_path: Path
) -> None:
    _, composition, alternative, xrd = FORMS[form]
    ours = render(
        form,
        composition,
        development(support.ROOT / "examples" / "functions.yaml", addresses, tmp_path / "a.yaml"),
        stage,
        "-e",
        "examples/platform",
        "--xrd",
        xrd,
    )
    theirs = render(
        form,
        alternative,
        development(ALTERNATIVE / "functions.yaml", addresses, tmp_path / "b.yaml"),
        stage,
    )
    assert len(ours) >= 4
    if form == "v2":
        marks = ours["deployment"]["metadata"]["annotations"]
        assert all(marks.pop(mark) for mark in MARKS)
    assert theirs == ours
