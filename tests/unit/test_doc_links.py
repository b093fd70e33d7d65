"""Every link of the README and the docs pages leads somewhere: a file that exists, a heading it has."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support import ROOT

PAGES = [ROOT / "README.md", ROOT / "BENCHMARKS.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6} (.+)$", re.M)
FENCE = re.compile(r"```.*?```", re.S)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lowercase, punctuation gone, spaces to hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    return {slug(h) for h in HEADING.findall(FENCE.sub("", page.read_text()))}


def links(page: Path) -> list[str]:
    return [
        link
        for link in LINK.findall(FENCE.sub("", page.read_text()))
        if not link.startswith(("http://", "https://", "mailto:"))
    ]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_leads_to_a_file_and_heading_that_exist(page: Path) -> None:
    broken = []
    for link in links(page):
        path, _, anchor = link.partition("#")
        target = (page.parent / path).resolve() if path else page
        if not target.exists() or (
            anchor and target.suffix == ".md" and anchor not in anchors(target)
        ):
            broken.append(link)
    assert broken == []


def test_the_readme_is_read_in_five_minutes() -> None:
    assert len((ROOT / "README.md").read_bytes()) <= 15_000


def test_the_benchmarks_page_is_the_latest_results_not_a_diary() -> None:
    assert len((ROOT / "BENCHMARKS.md").read_bytes()) <= 12_000
