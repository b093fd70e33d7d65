"""How `flavors plan` reports its verdicts: counts, text for a terminal, a markdown table."""

from __future__ import annotations

from collections.abc import Sequence

from function.cli.tools.plan import VERDICTS, Verdict


def fails(verdicts: Sequence[Verdict], fail_on: str) -> bool:
    """Whether any verdict is `fail_on` or worse, not counting refusals the change did not make."""
    worst = VERDICTS.index(fail_on)
    return any(VERDICTS.index(v.verdict) >= worst and not v.as_before for v in verdicts)


def summary(verdicts: Sequence[Verdict]) -> dict[str, int]:
    """How many actors got each verdict."""
    return {name: sum(v.verdict == name for v in verdicts) for name in VERDICTS}


def _counted(verdicts: Sequence[Verdict]) -> str:
    """`5 unchanged, 0 changed, 2 restart, 4 refused`."""
    counts = summary(verdicts)
    return ", ".join(f"{counts[name]} {name}" for name in VERDICTS)


AS_BEFORE = " (as before the change)"


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
            lines.append(f"  {verdict.error}")
        for change in verdict.changes:
            if change.resource != "spec":
                continue
            source = f" ({change.source})" if change.source else ""
            lines.append(f"  {change.path}: {change.before!r} -> {change.after!r}{source}")
        touched = sorted({c.resource for c in verdict.changes if c.resource != "spec"})
        if touched:
            lines.append(f"  composed resources that change: {', '.join(touched)}")
    lines.append(_counted(verdicts))
    return lines


def as_markdown(verdicts: Sequence[Verdict]) -> list[str]:
    """A table fit for a pull-request comment."""
    lines = [
        f"**Flavor plan**: {_counted(verdicts)}",
        "",
        "| Actor | Verdict | What changes |",
        "|---|---|---|",
    ]
    for verdict in verdicts:
        if verdict.verdict == "unchanged":
            continue
        if verdict.error:
            what = verdict.error + (AS_BEFORE if verdict.as_before else "")
        else:
            what = "; ".join(
                f"`{c.path}` {c.before!r} → {c.after!r}" + (f" ({c.source})" if c.source else "")
                for c in verdict.changes
                if c.resource == "spec"
            )
        cell = what.replace("|", "\\|")
        lines.append(f"| {verdict.actor} | {verdict.verdict} | {cell} |")
    return lines
