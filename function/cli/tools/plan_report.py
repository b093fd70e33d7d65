"""How `flavors plan` reports its verdicts: counts, exit codes, text for a terminal, Markdown for a pull request."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from function.cli.tools.library import plural
from function.cli.tools.plan import VERDICTS, Change, Verdict

# The first line of the Markdown: a CI job finds its earlier comment by it and edits it.
MARKER = "<!-- function-asya:flavors-plan -->"
# GitHub refuses a comment (and a step summary) longer than this.
MARKDOWN_LIMIT = 65_536
# What the Markdown keeps free for what follows the last row that fits: every
# verdict's closing lines and the line saying how many actors were left out.
RESERVE = 2_000
# A verdict's actors show unfolded up to this many.
FEW = 5
# In the concise table, a cell's text is cut here.
CONCISE = 120
AS_BEFORE = " (as before the change)"
# crossplane-diff's exit codes: no change, an error, refused (it fails validation), changed.
NO_CHANGE, REFUSED, CHANGED = 0, 2, 3


def fails(verdicts: Sequence[Verdict], fail_on: str) -> bool:
    """Whether any verdict is `fail_on` or worse, not counting refusals the change did not make."""
    worst = VERDICTS.index(fail_on)
    return any(VERDICTS.index(v.verdict) >= worst and not v.as_before for v in verdicts)


def exit_code(verdicts: Sequence[Verdict]) -> int:
    """2 when the change refuses an actor, else 3 when it changes one, else 0."""
    if fails(verdicts, "refused"):
        return REFUSED
    return CHANGED if fails(verdicts, "fixed") else NO_CHANGE


def summary(verdicts: Sequence[Verdict]) -> dict[str, int]:
    """How many actors got each verdict."""
    return {name: sum(v.verdict == name for v in verdicts) for name in VERDICTS}


def _counted(verdicts: Sequence[Verdict]) -> str:
    """`5 unchanged, 1 fixed, 0 changed, 2 restart, 4 refused`."""
    counts = summary(verdicts)
    return ", ".join(f"{counts[name]} {name}" for name in VERDICTS)


def shown(value: Any) -> str:
    """A value as JSON writes it, keys sorted: `null`, `true`, `"16Gi"`, `{"key": "spot"}`."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _change(change: Change, code: str = "") -> str:
    source = f" ({change.source})" if change.source else ""
    values = f"{code}{shown(change.before)}{code} -> {code}{shown(change.after)}{code}"
    return f"{code}{change.field}{code}: {values}{source}"


def _spec_changes(verdict: Verdict) -> list[Change]:
    """What a person reads first: the resolved spec's changes (all of it, for `fixed`: none)."""
    if verdict.verdict == "fixed":
        return []
    return [c for c in verdict.changes if c.resource == "spec"]


def as_text(verdicts: Sequence[Verdict]) -> list[str]:
    """What a person reads in a terminal: the actors the change touches, and the counts."""
    lines = []
    for verdict in verdicts:
        if verdict.verdict == "unchanged":
            continue
        lines.append(
            f"{verdict.actor}: {verdict.verdict}" + (AS_BEFORE if verdict.as_before else "")
        )
        if verdict.error:
            lines.append(f"  {'was: ' if verdict.verdict == 'fixed' else ''}{verdict.error}")
        lines += [f"  {_change(change)}" for change in _spec_changes(verdict)]
        touched = sorted({c.resource for c in verdict.changes if c.resource != "spec"})
        if touched:
            lines.append(f"  composed resources that change: {', '.join(touched)}")
    lines.append(_counted(verdicts))
    return lines


def _cell(verdict: Verdict, concise: bool) -> str:
    if verdict.error:
        parts = [
            ("was: " if verdict.verdict == "fixed" else "")
            + verdict.error
            + (AS_BEFORE if verdict.as_before else "")
        ]
    else:
        parts = [_change(c, "`") for c in _spec_changes(verdict)] or [
            "composed resources: "
            + ", ".join(sorted({c.resource for c in verdict.changes if c.resource != "spec"}))
        ]
    text = "<br>".join(_escaped(p) for p in parts)
    if concise:
        first = _escaped(parts[0])
        text = first[:CONCISE] + ("…" if len(first) > CONCISE else "")
        text += f" (+{len(parts) - 1} more)" if len(parts) > 1 else ""
    return text


def _escaped(text: str) -> str:
    """Text a table cell holds as it is: no column break, line break or HTML tag."""
    return text.replace("|", "\\|").replace("\n", " ").replace("<", "&lt;")


def _markdown(verdicts: Sequence[Verdict], concise: bool, budget: int | None) -> list[str]:
    lines = [
        MARKER,
        "### Flavor plan",
        "",
        f"**{plural(len(verdicts), 'actor')}**: {_counted(verdicts)}",
    ]
    groups = []
    for name in reversed(VERDICTS[1:]):  # the worst first; unchanged is only counted
        # The change's own refusals first: those it did not make are for the record.
        group = sorted((v for v in verdicts if v.verdict == name), key=lambda v: v.as_before)
        if group:
            rows = [f"| {_escaped(v.actor)} | {_cell(v, concise)} |" for v in group]
            groups.append((_head(name, group), rows))
    shown = [len(rows) for _, rows in groups]
    if budget is not None:
        fixed = sum(len(line) + 1 for line in lines + [h for head, _ in groups for h in head])
        shown = _fitted([rows for _, rows in groups], budget - fixed - RESERVE)
    for (head, rows), count in zip(groups, shown, strict=True):
        lines += [*head, *rows[:count], "", "</details>"]
    left_out = len(verdicts) - sum(v.verdict == "unchanged" for v in verdicts) - sum(shown)
    if left_out:
        lines += [
            "",
            f"_{plural(left_out, 'actor')} left out to fit GitHub's {MARKDOWN_LIMIT:,} "
            "characters: `flavors plan -o json` lists every one._",
        ]
    return lines


def _head(name: str, group: Sequence[Verdict]) -> list[str]:
    old = sum(v.as_before for v in group)
    return [
        "",
        "<details open>" if len(group) <= FEW else "<details>",
        f"<summary><b>{name}</b>: {plural(len(group), 'actor')}"
        + (f" ({old} as before the change)" if old else "")
        + "</summary>",
        "",
        "| Actor | What changes |" if name != "refused" else "| Actor | Why |",
        "|---|---|",
    ]


def _fitted(groups: Sequence[Sequence[str]], room: int) -> list[int]:
    """How many rows of each group fit in `room` characters, shared out evenly.

    A group needing less than its share leaves the rest to the others: a few refusals
    all show, and thousands of restarts do not crowd out every other verdict.
    """
    sizes = [[len(row) + 1 for row in rows] for rows in groups]
    shown = [0] * len(groups)
    waiting = sorted(range(len(groups)), key=lambda i: sum(sizes[i]))
    while waiting:
        share = room // len(waiting)
        index = waiting.pop(0)
        for size in sizes[index]:
            if size > share:
                break
            share -= size
            room -= size
            shown[index] += 1
    return shown


def as_markdown(verdicts: Sequence[Verdict], limit: int = MARKDOWN_LIMIT) -> str:
    """A pull-request comment: the marker, the counts, one `<details>` per verdict.

    Each changed actor with every change of its spec when that fits in `limit`
    characters; else a concise table (each actor's first change or error, cut short);
    else as many actors as fit, and a line saying how many were left out.
    """
    for concise in (False, True):
        text = "\n".join(_markdown(verdicts, concise, None)) + "\n"
        if len(text) <= limit:
            return text
    return "\n".join(_markdown(verdicts, True, limit)) + "\n"
