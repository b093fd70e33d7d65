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


def _said(verdict: Verdict, code: str = "") -> list[str]:
    """What to say of an actor: its message, else its spec's changes; what it composes anew.

    For `fixed`, the message it had, and no spec change: its spec is all new.
    """
    was = "was: " if verdict.verdict == "fixed" else ""
    found = [was + verdict.error] if verdict.error else []
    if verdict.verdict != "fixed":
        found += [_change(c, code) for c in verdict.changes if c.resource == "spec"]
    if touched := sorted({c.resource for c in verdict.changes if c.resource != "spec"}):
        found.append(f"composed resources that change: {', '.join(touched)}")
    return found


def as_text(verdicts: Sequence[Verdict]) -> list[str]:
    """What a person reads in a terminal: the actors the change touches, and the counts."""
    lines = []
    for verdict in (v for v in verdicts if v.verdict != "unchanged"):
        lines.append(f"{verdict.actor}: {verdict.verdict}" + AS_BEFORE * verdict.as_before)
        lines += [f"  {said}" for said in _said(verdict)]
    return [*lines, _counted(verdicts)]


def _row(verdict: Verdict, concise: bool) -> str:
    parts = [_escaped(said) for said in _said(verdict, "`")]
    parts[0] += AS_BEFORE * verdict.as_before
    cell = "<br>".join(parts)
    if concise:  # the first part, cut short
        cell = parts[0][:CONCISE] + "…" * (len(parts[0]) > CONCISE)
        cell += f" (+{len(parts) - 1} more)" * (len(parts) > 1)
    return f"| {_escaped(verdict.actor)} | {cell} |"


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
        old = sum(v.as_before for v in group)
        head = [
            "",
            "<details open>" if len(group) <= FEW else "<details>",
            f"<summary><b>{name}</b>: {plural(len(group), 'actor')}"
            + f" ({old} as before the change)" * bool(old)
            + "</summary>",
            "",
            "| Actor | Why |" if name == "refused" else "| Actor | What changes |",
            "|---|---|",
        ]
        groups += [(head, [_row(v, concise) for v in group])] if group else []
    shown = [len(rows) for _, rows in groups]
    if budget is not None:
        fixed = sum(len(line) + 1 for line in lines + [h for head, _ in groups for h in head])
        shown = _fitted([rows for _, rows in groups], budget - fixed - RESERVE)
    for (head, rows), count in zip(groups, shown, strict=True):
        lines += [*head, *rows[:count], "", "</details>"]
    if left_out := sum(len(rows) for _, rows in groups) - sum(shown):
        lines += [
            "",
            f"_{plural(left_out, 'actor')} left out to fit GitHub's {MARKDOWN_LIMIT:,} "
            "characters: `flavors plan -o json` lists every one._",
        ]
    return lines


def _fitted(groups: Sequence[Sequence[str]], room: int) -> list[int]:
    """How many rows of each group fit in `room` characters, shared out evenly.

    A group needing less than its share leaves the rest to the others: a few refusals
    all show, and thousands of restarts do not crowd out every other verdict.
    """
    shown = [0] * len(groups)
    waiting = sorted(range(len(groups)), key=lambda i: sum(map(len, groups[i])))
    while waiting:
        share = room // len(waiting)
        index = waiting.pop(0)
        for size in (len(row) + 1 for row in groups[index]):
            if size > share:
                break
            share, room, shown[index] = share - size, room - size, shown[index] + 1
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
