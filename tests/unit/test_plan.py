"""`flavors plan`: each actor's verdict for a change to the flavor library, by the function's own answers."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from function.cli.tools import plan_report
from tests.support import ROOT
from tests.unit.test_tools import run

EXAMPLES = ROOT / "examples"
GPU_ACTOR = (
    EXAMPLES / "flavored" / "gpu-checkpoints.yaml"
)  # gpu-a100, scale-aggressive, s3-checkpoints
CPU_ACTOR = EXAMPLES / "flavored" / "small-cpu.yaml"  # cpu-small, scale-minimal


def library_after(tmp_path: Path, flavor: str, change: dict[str, Any]) -> str:
    """The example library with one flavor's data laid over `change`."""
    after = tmp_path / "after"
    shutil.copytree(EXAMPLES / "flavors", after)
    path = after / f"{flavor}.yaml"
    body = yaml.safe_load(path.read_text())
    body["data"] = _merged(body["data"], change)
    path.write_text(yaml.safe_dump(body))
    return str(after)


def _merged(base: Any, top: Any) -> Any:
    if isinstance(base, dict) and isinstance(top, dict):
        return {k: _merged(base.get(k), top[k]) if k in top else base[k] for k in {*base, *top}}
    return top


def plan_json(after: str, *actors: Path, extra: tuple[str, ...] = ()) -> tuple[int, dict[str, Any]]:
    args = ["flavors", "plan", "--before", str(EXAMPLES / "flavors"), "--after", after]
    for path in actors:
        args += ["--actors", str(path)]
    result = run(*args, "-o", "json", *extra)
    return result.exit_code, json.loads(result.stdout)


def verdicts(report: dict[str, Any]) -> dict[str, str]:
    return {a["actor"]: a["verdict"] for a in report["actors"]}


def test_an_unchanged_library_leaves_every_actor_unchanged() -> None:
    code, report = plan_json(str(EXAMPLES / "flavors"), GPU_ACTOR, CPU_ACTOR)
    assert code == 0
    assert set(verdicts(report).values()) == {"unchanged"}
    assert report["summary"] == {
        "unchanged": 2,
        "fixed": 0,
        "changed": 0,
        "restart": 0,
        "refused": 0,
    }


def test_a_memory_bump_restarts_the_actors_of_the_flavor_only(tmp_path: Path) -> None:
    after = library_after(tmp_path, "gpu-a100", {"resources": {"requests": {"memory": "24Gi"}}})
    _, report = plan_json(after, GPU_ACTOR, CPU_ACTOR)
    assert verdicts(report) == {"ml/gpu-checkpoints": "restart", "ml/small-cpu": "unchanged"}
    [gpu] = [a for a in report["actors"] if a["verdict"] == "restart"]
    assert {
        "resource": "spec",
        "path": "/resources/requests/memory",
        "before": "16Gi",
        "after": "24Gi",
        "source": "flavor gpu-a100",
        "field": "resources.requests.memory",
    } in gpu["changes"]
    [rendered] = [c for c in gpu["changes"] if c["resource"] == "deployment"]
    assert rendered["path"].endswith("/containers/0/resources/requests/memory")
    assert (rendered["after"], rendered["source"]) == ("24Gi", "flavor gpu-a100")


def test_a_scaling_change_changes_without_rolling_pods(tmp_path: Path) -> None:
    after = library_after(tmp_path, "scale-minimal", {"scaling": {"maxReplicaCount": 4}})
    _, report = plan_json(after, CPU_ACTOR)
    [cpu] = report["actors"]
    assert cpu["verdict"] == "changed"
    # Nothing observed: SQS's ScaledObject waits for the queue's URL, so the change shows
    # in the resolved spec the function hands on.
    assert [(c["resource"], c["path"], c["after"], c["source"]) for c in cpu["changes"]] == [
        ("spec", "/scaling/maxReplicaCount", 4, "flavor scale-minimal")
    ]


def test_a_new_conflict_refuses_with_the_functions_own_message(tmp_path: Path) -> None:
    after = library_after(tmp_path, "scale-minimal", {"resources": {"requests": {"cpu": "500m"}}})
    code, report = plan_json(after, CPU_ACTOR, extra=("--fail-on", "refused"))
    assert code == 1
    [cpu] = report["actors"]
    assert cpu["verdict"] == "refused"
    assert cpu["error"] == (
        'flavor merge conflict: flavors "cpu-small" and "scale-minimal" conflict on '
        "resources.requests.cpu"
    )
    assert "asBefore" not in cpu


@pytest.mark.parametrize(("fail_on", "code"), [("changed", 1), ("restart", 1), ("refused", 0)])
def test_fail_on_fails_on_that_verdict_or_worse(tmp_path: Path, fail_on: str, code: int) -> None:
    after = library_after(tmp_path, "gpu-a100", {"resources": {"requests": {"memory": "24Gi"}}})
    got, _ = plan_json(after, GPU_ACTOR, extra=("--fail-on", fail_on))
    assert got == code


def test_a_kubectl_list_of_actors_is_read_and_an_actor_refused_before_says_so(
    tmp_path: Path,
) -> None:
    bodies = [
        yaml.safe_load(p.read_text())
        for p in (GPU_ACTOR, EXAMPLES / "flavored" / "missing-flavor.yaml")
    ]
    listed = tmp_path / "list.yaml"
    listed.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": bodies}))
    _, report = plan_json(str(EXAMPLES / "flavors"), listed)
    by_actor = {a["actor"]: a for a in report["actors"]}
    assert by_actor["ml/gpu-checkpoints"]["verdict"] == "unchanged"
    missing = by_actor["ml/missing-flavor"]
    assert (missing["verdict"], missing["asBefore"]) == ("refused", True)
    assert missing["error"].startswith("Waiting for 1 flavor: gpu-h200")


def test_text_and_markdown_show_what_changes_and_who_set_it(tmp_path: Path) -> None:
    after = library_after(tmp_path, "gpu-a100", {"resources": {"requests": {"memory": "24Gi"}}})
    base = ["flavors", "plan", "--before", str(EXAMPLES / "flavors"), "--after", after]
    text = run(*base, "--actors", str(GPU_ACTOR)).stdout.splitlines()
    assert text == [
        "ml/gpu-checkpoints: restart",
        '  resources.requests.memory: "16Gi" -> "24Gi" (flavor gpu-a100)',
        "  composed resources that change: deployment",
        "0 unchanged, 0 fixed, 0 changed, 1 restart, 0 refused",
    ]
    markdown = run(*base, "--actors", str(GPU_ACTOR), "-o", "markdown").stdout.splitlines()
    assert markdown[:4] == [
        "<!-- function-asya:flavors-plan -->",
        "### Flavor plan",
        "",
        "**1 actor**: 0 unchanged, 0 fixed, 0 changed, 1 restart, 0 refused",
    ]
    assert (
        '| ml/gpu-checkpoints | `resources.requests.memory`: `"16Gi"` -> `"24Gi"` '
        "(flavor gpu-a100)<br>composed resources that change: deployment |"
    ) in markdown


def test_usage_errors_exit_2() -> None:
    assert run("flavors", "plan", "--before", str(EXAMPLES / "flavors")).exit_code == 2
    assert (
        run(
            "flavors",
            "plan",
            "--before",
            "x",
            "--after",
            "y",
            "--actors",
            str(GPU_ACTOR),
            "--fail-on",
            "bogus",
        ).exit_code
        == 2
    )


README_PLAN = [
    "flavors",
    "plan",
    "--before",
    "examples/flavors",
    "--before",
    "examples/team-flavors",
    "--after",
    "examples/flavors",
    "--after",
    "examples/team-flavors",
    "--after",
    "examples/flavor-change",
    "--actors",
    "examples/flavored",
]


@pytest.mark.parametrize(
    ("output", "page"), [("text", "docs/platform-tools.md"), ("markdown", "docs/flavors-plan.md")]
)
def test_the_docs_show_what_the_plan_of_the_example_change_prints(
    output: str, page: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    printed = run(*README_PLAN, "-o", output).stdout
    assert f"```{output}\n{printed}```" in (ROOT / page).read_text()
    # The change the example makes: GPU actors restart, one actor is refused anew.
    assert "ml/gpu-checkpoints" in printed
    assert "restart" in printed
    assert 'flavors "cpu-large" and "redis-cache" conflict' in printed


def test_a_later_path_replaces_an_earlier_flavor_of_the_same_name() -> None:
    code, report = plan_json(
        str(EXAMPLES / "flavors"), GPU_ACTOR, extra=("--after", str(EXAMPLES / "flavor-change"))
    )
    assert code == 0
    assert verdicts(report) == {"ml/gpu-checkpoints": "restart"}


def test_refusals_the_change_did_not_make_never_fail_the_run() -> None:
    code, report = plan_json(
        str(EXAMPLES / "flavors"),
        EXAMPLES / "flavored" / "missing-flavor.yaml",
        extra=("--fail-on", "changed"),
    )
    assert [a["verdict"] for a in report["actors"]] == ["refused"]
    assert code == 0


def test_an_actor_nested_past_what_protobuf_carries_is_an_error_not_a_traceback(
    tmp_path: Path,
) -> None:
    deep: Any = "leaf"
    for _ in range(120):
        deep = {"nested": deep}
    body = yaml.safe_load(GPU_ACTOR.read_text())
    body["spec"]["resources"] = deep
    path = tmp_path / "deep.yaml"
    path.write_text(yaml.safe_dump(body))
    result = run(
        "flavors",
        "plan",
        "--before",
        str(EXAMPLES / "flavors"),
        "--after",
        str(EXAMPLES / "flavors"),
        "--actors",
        str(path),
    )
    assert result.exit_code == 1
    assert result.stderr.startswith(
        f"function-asya: error: cannot load {path}: spec.resources.nested"
    )
    assert "Traceback" not in result.output


def test_the_example_workflow_finds_its_comment_by_the_markers_and_flags_plan_has() -> None:
    workflow = yaml.safe_load((EXAMPLES / "ci" / "flavors-plan.yaml").read_text())
    steps = workflow["jobs"]["plan"]["steps"]
    [command] = [s["run"] for s in steps if "flavors plan" in s.get("run", "")]
    [script] = [s["with"]["script"] for s in steps if "script" in s.get("with", {})]
    assert f'"{plan_report.MARKER}"' in script
    options = run("flavors", "plan", "--help").stdout
    flags = {word for word in command.split() if word.startswith("-")}
    assert flags == {"--before", "--after", "--actors", "-o", "--step-summary", "--exit-code"}
    assert all(flag in options for flag in flags)


def test_a_composition_whose_input_does_not_parse_fails_the_plan_naming_it(tmp_path: Path) -> None:
    composition = yaml.safe_load((ROOT / "compositions" / "asyncactor-sqs.yaml").read_text())
    [step] = [s for s in composition["spec"]["pipeline"] if "asya" in str(s.get("input"))]
    step["input"]["bogusKey"] = 1
    path = tmp_path / "composition.yaml"
    path.write_text(yaml.safe_dump(composition))
    result = run(
        "flavors", "plan", "--before", str(EXAMPLES / "flavors"), "--after",
        str(EXAMPLES / "flavors"), "--actors", str(CPU_ACTOR), "--composition", str(path),
    )  # fmt: skip
    assert result.exit_code == 1
    assert result.stderr.startswith(f"function-asya: error: {path}: invalid function input: ")
