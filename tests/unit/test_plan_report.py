"""`flavors plan`'s report: YAML/JSON values, list items, blame, `fixed`, exit codes and a PR-sized Markdown."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from function.cli.tools import plan_report
from function.cli.tools.plan import Change, Verdict
from tests.support import FUNCTION_ASYA, ROOT
from tests.unit.test_tools import flavor, run, write

EXAMPLES = ROOT / "examples"


def actor(name: str, flavors: list[str]) -> dict[str, Any]:
    return {
        "apiVersion": "asya.sh/v1alpha1",
        "kind": "XAsyncActor",
        "metadata": {"name": name, "labels": {"crossplane.io/claim-namespace": "ml"}},
        "spec": {"actor": name, "image": "i:1", "handler": "h.f", "flavors": flavors},
    }


GPU = {"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]}
SPOT_TOLERATION = {"key": "spot", "operator": "Exists", "effect": "NoSchedule"}


def plan(tmp_path: Path, before: list[Any], after: list[Any], *args: str) -> Any:
    (tmp_path / "before").mkdir(exist_ok=True)
    (tmp_path / "after").mkdir(exist_ok=True)
    actors = write(tmp_path / "actors.yaml", actor("gpu-spot", ["gpu-big", "spot"]))
    return run(
        "flavors", "plan", "--actors", actors,
        "--before", write(tmp_path / "before" / "lib.yaml", *before),
        "--after", write(tmp_path / "after" / "lib.yaml", *after), *args,
    )  # fmt: skip


def test_an_appended_toleration_is_one_item_blamed_on_the_flavor_that_added_it(
    tmp_path: Path,
) -> None:
    before = [flavor("gpu-big", GPU), flavor("spot", {"nodeSelector": {"pool": "spot"}})]
    after = [
        flavor("gpu-big", GPU),
        flavor("spot", {"nodeSelector": {"pool": "spot"}, "tolerations": [SPOT_TOLERATION]}),
    ]
    result = plan(tmp_path, before, after, "-o", "json")
    [gpu_spot] = json.loads(result.stdout)["actors"]
    spec = [c for c in gpu_spot["changes"] if c["resource"] == "spec"]
    assert spec == [
        {
            "resource": "spec",
            "path": "/tolerations/1",
            "field": "tolerations[1]",
            "before": None,
            "after": SPOT_TOLERATION,
            "source": "flavor spot",
        }
    ]
    text = plan(tmp_path, before, after).stdout.splitlines()
    assert text[1] == (
        '  tolerations[1]: null -> {"effect": "NoSchedule", "key": "spot", "operator": "Exists"} '
        "(flavor spot)"
    )


def test_an_env_entry_is_matched_by_name_and_values_are_json(tmp_path: Path) -> None:
    env = [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]
    before = [flavor("gpu-big", {"env": env}), flavor("spot", {"nodeSelector": {"pool": "x"}})]
    after = [
        flavor("gpu-big", {"env": [{"name": "NEW", "value": "0"}, *env[:1]]}),
        flavor("spot", {"nodeSelector": {"pool": "x", "preemptible": "true"}}),
    ]
    lines = plan(tmp_path, before, after).stdout.splitlines()
    assert lines[1:4] == [
        '  env[NEW]: null -> {"name": "NEW", "value": "0"} (flavor gpu-big)',
        '  env[B]: {"name": "B", "value": "2"} -> null',
        '  nodeSelector.preemptible: null -> "true" (flavor spot)',
    ]
    assert "None" not in "\n".join(lines)
    assert "'" not in "\n".join(lines)


def test_an_actor_waiting_for_a_missing_flavor_is_fixed_once_the_flavor_is_added(
    tmp_path: Path,
) -> None:
    result = plan(
        tmp_path, [flavor("gpu-big", GPU)], [flavor("gpu-big", GPU), flavor("spot", {})],
        "-o", "json", "--exit-code",
    )  # fmt: skip
    [fixed] = json.loads(result.stdout)["actors"]
    assert fixed["verdict"] == "fixed"
    assert fixed["error"].startswith("Waiting for 1 flavor: spot")
    assert result.exit_code == plan_report.CHANGED


@pytest.mark.parametrize(
    ("after", "code"),
    [
        ({"replicas": 2}, 0),  # the actor's library is unchanged
        ({"replicas": 3}, 3),
        ({"replicas": "three"}, 2),
    ],
    ids=["no change", "changed", "refused"],
)
def test_exit_code_follows_crossplane_diff(tmp_path: Path, after: Any, code: int) -> None:
    result = plan(
        tmp_path,
        [flavor("gpu-big", GPU), flavor("spot", {"replicas": 2})],
        [flavor("gpu-big", GPU), flavor("spot", after)],
        "--exit-code",
    )
    assert result.exit_code == code, result.output


def test_step_summary_appends_the_markdown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    library = [flavor("gpu-big", GPU), flavor("spot", {})]
    result = plan(tmp_path, library, library, "--step-summary")
    assert result.exit_code == 0
    assert summary.read_text().startswith(f"earlier step\n{plan_report.MARKER}\n")
    assert result.stdout.endswith("1 unchanged, 0 fixed, 0 changed, 0 restart, 0 refused\n")


def verdict(number: int, name: str, changes: int = 1) -> Verdict:
    found = tuple(
        Change("spec", f"/env/{i}/value", f"old-{i}", "new-" + "x" * 60, "flavor gpu", f"env[E{i}]")
        for i in range(changes)
    )
    if name == "refused":
        return Verdict(f"ml/actor-{number:05}", name, error="flavor merge conflict: " + "y" * 200)
    return Verdict(f"ml/actor-{number:05}", name, found)


def balanced(markdown: str) -> bool:
    return markdown.count("<details") == markdown.count("</details>")


def test_markdown_opens_with_the_marker_and_folds_a_verdict_past_a_few_actors() -> None:
    markdown = plan_report.as_markdown(
        [verdict(1, "refused"), *(verdict(n, "restart") for n in range(2, 9))]
    )
    lines = markdown.splitlines()
    assert lines[0] == "<!-- function-asya:flavors-plan -->"
    assert lines[3] == "**8 actors**: 0 unchanged, 0 fixed, 0 changed, 7 restart, 1 refused"
    assert "<details open>\n<summary><b>refused</b>: 1 actor</summary>" in markdown
    assert "<details>\n<summary><b>restart</b>: 7 actors</summary>" in markdown
    assert markdown.index("refused</b>") < markdown.index("restart</b>")  # the worst first
    assert balanced(markdown)


def test_a_plan_too_long_for_github_is_concise_then_cut_with_a_count() -> None:
    verdicts = [verdict(n, "refused" if n % 50 == 0 else "restart", 20) for n in range(3000)]
    full = plan_report.as_markdown(verdicts, limit=10**9)
    assert "(+19 more)" not in full
    concise = plan_report.as_markdown(verdicts[:300])
    assert len(full) > plan_report.MARKDOWN_LIMIT > len(concise)
    assert "(+19 more)" in concise
    cut = plan_report.as_markdown(verdicts)
    assert len(cut) <= plan_report.MARKDOWN_LIMIT
    assert balanced(cut)
    [said] = re.findall(r"_(\d+) actors left out to fit GitHub's 65,536 characters", cut)
    rows = [line for line in cut.splitlines() if line.startswith("| ml/")]
    assert len(rows) + int(said) == 3000
    # Every refusal fits before any restart is cut.
    assert sum("merge conflict" in row for row in rows) == 60


@pytest.mark.slow
def test_the_same_plan_prints_the_same_bytes_in_every_process(tmp_path: Path) -> None:
    # Two flavors conflicting on two keys (the function's own refusal), values that are
    # maps, and a changed list: what a process's hash seed or protobuf's map order could
    # reorder.
    before = [flavor("gpu-big", GPU), flavor("spot", {"nodeSelector": {"pool": "spot"}})]
    after = [
        flavor("gpu-big", {**GPU, "scaling": {"minReplicaCount": 1, "maxReplicaCount": 5}}),
        flavor(
            "spot",
            {
                "nodeSelector": {"pool": "spot", "zone": "a", "disk": "ssd"},
                "tolerations": [SPOT_TOLERATION],
                "scaling": {"maxReplicaCount": 6, "minReplicaCount": 2},
            },
        ),
    ]
    write(tmp_path / "conflict.yaml", actor("gpu-spot", ["gpu-big", "spot"]))
    write(tmp_path / "changed.yaml", actor("spot-only", ["spot"]))
    (tmp_path / "before").mkdir()
    (tmp_path / "after").mkdir()
    args = [
        "flavors", "plan", "--actors", str(tmp_path / "conflict.yaml"),
        "--actors", str(tmp_path / "changed.yaml"),
        "--before", write(tmp_path / "before" / "lib.yaml", *before),
        "--after", write(tmp_path / "after" / "lib.yaml", *after),
    ]  # fmt: skip
    for output in ("text", "markdown", "json"):
        printed = {
            subprocess.run(
                [FUNCTION_ASYA, *args, "-o", output],
                capture_output=True,
                check=True,
                env={**os.environ, "PYTHONHASHSEED": str(seed)},
                timeout=120,
            ).stdout
            for seed in (0, 1, 2, 3, 4, 5)
        }
        assert len(printed) == 1, output
        assert b"conflict on scaling.maxReplicaCount" in printed.pop()
