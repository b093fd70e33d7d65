"""The example READMEs show what the function really prints."""

from __future__ import annotations

import re

import pytest
import yaml

from tests.golden.cases import CASES, EXAMPLES

BLOCK = re.compile(r"^### (?P<stage>[a-z-]+):.*?```yaml\n(?P<status>.*?)```", re.S | re.M)


@pytest.mark.parametrize(
    ("actor", "stages"),
    [
        ("text-processor", 6),
        ("image-enhancer", 6),
        ("rabbitmq", 3),
        ("pubsub", 4),
        ("troubleshooting", 5),
    ],
)
def test_the_status_each_readme_shows_is_what_render_prints(actor: str, stages: int) -> None:
    text = (EXAMPLES / actor / "README.md").read_text()
    shown = {m["stage"]: yaml.safe_load(m["status"])["status"] for m in BLOCK.finditer(text)}
    assert len(shown) == stages
    cases = {c.name: c for c in CASES}
    for stage, status in shown.items():
        rendered = cases[f"{actor}-{stage}"].render()[0]["status"]
        rendered.pop("conditions")
        assert rendered == status, stage
