"""docs/flavors.md's table of how each list merges, written from the merge rules table.

`make generate` runs `python -m function.generate`, which writes the table
between the page's `list-rules` markers; tests/unit/test_merge_rules.py fails while
the page holds another.
"""

from __future__ import annotations

from pathlib import Path

from function.generate import crds
from function.resolve import paths
from function.resolve.merge_rules import LIST_RULES, ListRule, Pattern

PAGE = Path("docs") / "flavors.md"
BEGIN, END = "<!-- list-rules -->", "<!-- /list-rules -->"
# The table sits in a numbered list item of the page.
INDENT = "   "


def row(pattern: Pattern, rule: ListRule) -> tuple[str, str, str]:
    """A list's row: its path, how its items are told apart, what two flavors' same item do."""
    name = paths.dotted([paths.Item("*") if key == "*" else key for key in pattern])
    if rule.identity is None:
        how = "appended, the actor's first" if rule.actor_first else "appended"
        return f"`{name}`", how, "exact duplicates dropped"
    if rule.merge_items:
        [(inner, inner_rule)] = [
            (p, r) for p, r in LIST_RULES.items() if p[: len(pattern) + 1] == (*pattern, "*")
        ]
        same = f"their fields merge (`{inner[-1]}` by `{inner_rule.identity}`)"
    else:
        same = "once if identical, else a conflict"
    return f"`{name}`", f"by `{rule.identity}`", same


def table() -> str:
    """The table, markers included, as the page holds it."""
    lines = [
        BEGIN,
        "| List | Items | When two flavors have the same item |",
        "|---|---|---|",
        *("| " + " | ".join(row(p, r)) + " |" for p, r in LIST_RULES.items()),
        END,
    ]
    return "\n".join(INDENT + line for line in lines)


def page(text: str) -> str:
    """The page's text with its table written anew."""
    before, rest = text.split(INDENT + BEGIN, 1)
    return before + table() + rest.split(END, 1)[1]


def main(root: Path) -> bool:
    """Write the table into the page under `root`; tell whether it changed."""
    target = root / PAGE
    return crds.write_if_changed(target, page(target.read_text(encoding="utf-8")))
