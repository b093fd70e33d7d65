"""The README and the docs pages lead only to what a reader can open, and say each title once.

Every link leads to a file that exists in the repository and a heading it has; no page
cites a document the repository does not hold (the specification, an audit, a path
under ../shared) as if it were a project file; a backticked path names a file that
exists; and no page repeats its title as a heading. The code's comments and docstrings
are held to the same citations and paths in test_the_code_cites_only_what_the_repository_holds.
"""

from __future__ import annotations

import io
import os
import re
import tokenize
from pathlib import Path

import pytest

from tests.support import ROOT

PAGES = [ROOT / "README.md", ROOT / "BENCHMARKS.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6} (.+)$", re.M)
LEVELLED_HEADING = re.compile(r"^(#{1,6}) (.+)$")
FENCE = re.compile(r"```.*?```", re.S)

# What is not the project's own: caches, builds, the virtualenv, the tools' downloads.
NOT_THE_PROJECT = {
    ".git",
    ".venv",
    ".e2e",
    ".hypothesis",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".import_linter_cache",
    "__pycache__",
    "build",
    "dist",
}
# A file of the project's kinds: what a path must end in to be taken for a file's.
FILE_PATH = re.compile(
    r"(?<![\w./~$@:-])((?:\.{1,2}/)*[\w.-]+(?:/[\w.-]+)+\.(?:py|pyi|c|h|md|yaml|yml|json|toml|cfg|sh|go|proto|txt))(?![\w/-])"
)
BACKTICKED = re.compile(r"`([^`\n]+)`")
# The specification lives outside the repository (SPEC.md under ../shared): cited as
# `SPEC`, `SPEC.md`, `SPEC §5.4` or `SPEC: ...`, a reader has nothing to open. A section
# sign cites a document by section: the repository's pages are cited by their links and
# anchors instead, so `§` is only for a standard a reader can look up (an RFC).
CITATION = re.compile(r"\bSPEC\b(?:\.md)?(?:\s*§\s*[\d.]*)?|§")
RFC_BEFORE = re.compile(r"\bRFC ?\d+,?\s*$")


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lowercase, punctuation gone, spaces to hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    return {slug(h) for h in HEADING.findall(FENCE.sub("", page.read_text()))}


def links(text: str) -> list[str]:
    return [
        link
        for link in LINK.findall(FENCE.sub("", text))
        if not link.startswith(("http://", "https://", "mailto:"))
    ]


def broken_links(text: str, page: Path) -> list[str]:
    """The links of `page` (whose text is `text`) that lead out of the repository or nowhere."""
    broken = []
    for link in links(text):
        path, _, anchor = link.partition("#")
        target = (page.parent / path).resolve() if path else page
        if (
            not in_repository(target)
            or not target.exists()
            or (anchor and target.suffix == ".md" and anchor not in anchors(target))
        ):
            broken.append(link)
    return broken


def in_repository(path: Path) -> bool:
    return path == ROOT or ROOT in path.parents


def project_files(root: Path = ROOT) -> frozenset[str]:
    """Every file of the project, as a path relative to its root (`function/runner.py`)."""
    found = set()
    for top, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in NOT_THE_PROJECT and not d.endswith(".egg-info")]
        base = Path(top).relative_to(root)
        found.update((base / name).as_posix() for name in files)
    return frozenset(found)


FILES = project_files()
TOP_DIRS = frozenset(path.split("/", 1)[0] for path in FILES if "/" in path)


def outside_citations(text: str) -> list[str]:
    """The citations of documents outside the repository in `text`, each with its context."""
    found = [
        m
        for m in CITATION.finditer(text)
        if m.group() != "§" or not RFC_BEFORE.search(text[max(0, m.start() - 20) : m.start()])
    ]
    return [" ".join(text[max(0, m.start() - 30) : m.end() + 30].split()) for m in found]


def _exists(path: str, here: Path, files: frozenset[str], tail: bool) -> bool:
    """Whether `path` names one of `files` (the repository's), from the root or from `here`.

    With `tail`, a path that ends the path of a project file (`renderers/sqs.py`, as the
    code map names the modules of a package) names it too.
    """
    for base in (ROOT, here):
        target = (base / path).resolve()
        if not in_repository(target):
            continue
        if target.relative_to(ROOT).as_posix() in files:
            return True
    return tail and not path.startswith(".") and any(name.endswith("/" + path) for name in files)


def missing_files(
    text: str, here: Path = ROOT, files: frozenset[str] = FILES, backticked: bool = True
) -> list[str]:
    """The paths in `text` presented as the repository's files that it does not hold.

    A path is presented as a project file when it begins with one of the project's top
    folders (`function/codec/_structwire.c`), when it leads out of the repository to a
    file (`../shared/SPEC.md`: a folder beside the clone, such as `../shared/schemas`,
    is the development setup and fine), or, with `backticked`, when it stands in
    backticks with a folder and an extension (`compose/status.py`). A backticked path
    from the root (`/tmp/x.py`), home or a variable, a URL or a pattern is not one.
    """
    missing = []
    for match in FILE_PATH.finditer(text):
        path = match.group(1)
        first = path.split("/", 1)[0]
        leaves = path.startswith("..") and not in_repository((ROOT / path).resolve())
        if (first in TOP_DIRS or leaves) and not _exists(path, here, files, tail=False):
            missing.append(path)
    if backticked:
        for span in BACKTICKED.findall(text):
            if span.startswith(("/", "~", "$")) or re.search(r"://|[*<>{}…]", span):
                continue
            for match in FILE_PATH.finditer(span):
                path = match.group(1)
                if path not in missing and not _exists(path, here, files, tail=True):
                    missing.append(path)
    return missing


def repeated_titles(text: str) -> list[str]:
    """The headings of a page that say its title again: the title itself, or its opening line.

    Words are compared by their stems (`Development`, `Developing`), so a section kept
    from the README under the page's own name is found however it was worded.
    """
    text = FENCE.sub("", text)
    lines = text.splitlines()
    headings = [
        (i, m.group(1), m.group(2))
        for i, line in enumerate(lines)
        if (m := LEVELLED_HEADING.match(line))
    ]
    if not headings or headings[0][1] != "#":
        return []
    first, _, title = headings[0]
    lead_lines = []
    for line in lines[first + 1 :]:
        if line.startswith("#") or (not line.strip() and lead_lines):
            break
        if line.strip():
            lead_lines.append(line)
    lead = _stems(" ".join(lead_lines))
    repeated = []
    for _, _, heading in headings[1:]:
        words = _stems(heading)
        says_lead = len(lead) >= 3 and any(
            words[i : i + len(lead)] == lead for i in range(len(words) - len(lead) + 1)
        )
        if words == _stems(title) or says_lead:
            repeated.append(heading)
    return repeated


def _stems(text: str) -> list[str]:
    words = re.findall(r"[a-z0-9]+", re.sub(r"[`*_]", "", text.lower()))
    return [re.sub(r"(?<=\w{3})(ment|ing|ed|es|s)$", "", word) for word in words]


def code_text(path: Path) -> str:
    """A source file's comments and strings (docstrings among them), each at its own line."""
    source = path.read_text()
    if path.suffix != ".py":
        return source
    lines = [""] * (source.count("\n") + 1)
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in (tokenize.COMMENT, tokenize.STRING):
            row = token.start[0] - 1
            for offset, line in enumerate(token.string.splitlines()):
                lines[row + offset] += " " + line
    return "\n".join(lines)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_leads_to_a_file_and_heading_that_exist(page: Path) -> None:
    assert broken_links(page.read_text(), page) == []


def test_a_link_out_of_the_repository_or_to_nothing_is_found() -> None:
    page = ROOT / "docs" / "flavors.md"
    text = (
        "[spec](../../shared/SPEC.md) [gone](render.md#no-such-heading) [none](nothing.md) "
        "[ok](serving.md#the-response-cache) [site](https://example.com/x.md)"
    )
    assert broken_links(text, page) == [
        "../../shared/SPEC.md",
        "render.md#no-such-heading",
        "nothing.md",
    ]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_page_cites_only_what_the_repository_holds(page: Path) -> None:
    text = FENCE.sub("", page.read_text())
    assert outside_citations(text) == []
    assert missing_files(text, page.parent) == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_page_says_its_title_once(page: Path) -> None:
    assert repeated_titles(page.read_text()) == []


def test_the_code_cites_only_what_the_repository_holds() -> None:
    """Comments and docstrings under function/: no SPEC, no section sign, no missing file."""
    found = []
    for path in sorted((ROOT / "function").rglob("*")):
        if path.suffix not in (".py", ".pyi", ".c") or "__pycache__" in path.parts:
            continue
        for number, line in enumerate(code_text(path).splitlines(), 1):
            problems = outside_citations(line) + missing_files(line, ROOT, backticked=False)
            found += [f"{path.relative_to(ROOT)}:{number}: {p}" for p in problems]
    assert found == []


@pytest.mark.parametrize(
    "text",
    [
        "The promise is bounded (SPEC §6.0).",
        "A transient observed state (SPEC: safe over time).",
        "as SPEC.md says",
        "kong with UsageOnError (render-fidelity §1 row 9)",
    ],
)
def test_a_citation_of_a_document_outside_the_repository_is_found(text: str) -> None:
    assert outside_citations(text) != []


@pytest.mark.parametrize(
    "text",
    [
        "RESOLVED_SPEC_CONTEXT_KEY and SPECIAL_FLOATS",
        "the spec of an actor",
        "as RFC 7231 §6.5.1 has it",
    ],
)
def test_what_is_no_citation_is_not_taken_for_one(text: str) -> None:
    assert outside_citations(text) == []


FAKE_FILES = frozenset(
    {"function/codec/_structwire.c", "function/compose/renderers/sqs.py", "docs/flavors.md"}
)


@pytest.mark.parametrize(
    ("text", "missing"),
    [
        ("builds the C codec (function/_structwire.c)", ["function/_structwire.c"]),
        ("its readiness in `compose/status.py`", ["compose/status.py"]),
        ("read ../shared/SPEC.md first", ["../shared/SPEC.md"]),
        (
            "see `../shared/reference/render-fidelity.md`",
            ["../shared/reference/render-fidelity.md"],
        ),
        ("the rule in function/resolve/validate.py", ["function/resolve/validate.py"]),
    ],
)
def test_a_path_to_a_file_the_repository_lacks_is_found(text: str, missing: list[str]) -> None:
    assert missing_files(text, ROOT / "docs", FAKE_FILES) == missing


@pytest.mark.parametrize(
    "text",
    [
        "builds the C codec (function/codec/_structwire.c)",
        "a class beside `renderers/sqs.py`",
        "the table of docs/flavors.md's list rules",
        "without `../shared` beside the clone, all but one skip",
        "the providers' CRDs are read from `../shared/schemas`",
        "the project's reference folder (`shared/schemas`, kept beside the clone)",
        "`/tmp/answers.yaml`, `$HOME/x/y.yaml`, `https://example.com/a/b.md`, `xrd/*.yaml`",
        "upstream's apis/keda/v1alpha1 and nvidia.com/gpu",
    ],
)
def test_a_path_the_repository_holds_or_no_project_path_passes(text: str) -> None:
    assert missing_files(text, ROOT / "docs", FAKE_FILES) == []


@pytest.mark.parametrize(
    "page",
    [
        "# Serving\n\nThe gRPC server.\n\n## Serving\n\ntext\n",
        "# Development\n\nWorking on it.\n\n## Developing\n",
        "# Tools for platform teams\n\nLint a library, explain an actor.\n\n"
        "## For platform teams: lint a library, explain an actor\n",
        "# Status\n\n### Status\n",
    ],
)
def test_a_title_said_again_as_a_heading_is_found(page: str) -> None:
    assert repeated_titles(page) != []


@pytest.mark.parametrize(
    "page",
    [
        "# Flavors\n\nHow flavors resolve.\n\n## Namespace flavors\n",
        "# Tools\n\n```yaml\n# Tools\n```\n\n## Lint\n",
        "No title here\n\n## Serving\n\n## Serving\n",
    ],
)
def test_a_page_whose_headings_differ_from_its_title_passes(page: str) -> None:
    assert repeated_titles(page) == []


def test_the_readme_is_read_in_five_minutes() -> None:
    assert len((ROOT / "README.md").read_bytes()) <= 15_000


def test_the_benchmarks_page_is_the_latest_results_not_a_diary() -> None:
    assert len((ROOT / "BENCHMARKS.md").read_bytes()) <= 12_000
