"""The fleet-rig phase's tables: the four sides composing a fleet, and the flavor edit."""

from __future__ import annotations

from typing import Any

from bench.fleet_rig import ALTERNATIVE, FLOOR, OURS, UNFLAVORED
from bench.report import Row, judged, ratio_row, ratio_text

SIDES_HEADER = (
    f"| Measure | {OURS} | {ALTERNATIVE} | ratio | target | | {FLOOR} | {UNFLAVORED} (ratio) |",
    "|---|---|---|---|---|---|---|---|",
)
EDIT_HEADER = (
    "| Crossplane core | every affected Deployment carries the edit | they composed afresh in "
    "| ratio | target | | calls per affected actor; answers computed: affected / others |",
    "|---|---|---|---|---|---|---|",
)


def _calls(numbers: dict[str, Any]) -> str:
    """Calls per actor, by function when there are several."""
    each = {k.removeprefix("calls "): v for k, v in numbers.items() if k.startswith("calls ")}
    if len(each) == 1:
        return f"{next(iter(each.values())):.1f}"
    named = ", ".join(f"{name.removeprefix('function-')} {v:.1f}" for name, v in each.items())
    return f"{sum(each.values()):.1f} ({named})"


def side_rows(raw: dict[str, Any], actors: int) -> list[Row]:
    """Composing the fleet: each side's wall time, CPU per actor, calls and memory.

    The last column is function-asya on the alternative's actors (no flavors), with its
    ratio to the alternative: the same resources composed, so the same work.
    """
    f, a, n, u = raw[OURS], raw[ALTERNATIVE], raw[FLOOR], raw[UNFLAVORED]

    def measured(label: str, key: str, unit: str, target: str | None) -> Row:
        spec = ".1f" if unit == "s" else ".2f"
        floor = f"{n[key]:{spec}} {unit}"
        equal = f"{u[key]:{spec}} {unit} ({ratio_text(u[key], a[key])})"
        return (*ratio_row(label, f[key], a[key], unit, target)[:6], floor, equal)

    return [
        measured(f"{actors:,} actors composed: wall time", "wall_s", "s", "fleet-rig wall"),
        measured(
            "function servers' CPU per actor", "function_cpu_ms", "ms", "fleet-rig function CPU"
        ),
        measured("Crossplane core's CPU per actor", "core_cpu_ms", "ms", "fleet-rig core CPU"),
        measured("kube-apiserver's CPU per actor", "apiserver_cpu_ms", "ms", None),
        (*judged("calls per actor", _calls(f), _calls(a), "-", None, 0)[:6], _calls(n), _calls(u)),
        (
            *judged(
                "function-asya's response cache while composing: hits / misses",
                f"{f['hits']:,.0f} / {f['misses']:,.0f}",
                "-",
                "-",
                None,
                0,
            )[:6],
            "-",
            f"{u['hits']:,.0f} / {u['misses']:,.0f}",
        ),
        (
            *judged(
                f"function-asya's RSS, {actors:,} actors composed",
                f"{f['rss_mib']:.1f} MiB",
                "-",
                "-",
                "fleet-rig RSS",
                f["rss_mib"],
            )[:6],
            "-",
            f"{u['rss_mib']:.1f} MiB",
        ),
    ]


def edit_rows(raw: dict[str, Any]) -> list[Row]:
    """The flavor edit on v2.4 (judged) and on v2.3.4 (what the watch changes)."""
    rows = []
    for core, key, target in (
        ("v2.4.0 (watches)", "edit", "fleet-rig edit"),
        ("v2.3.4 (poll, TTL)", "edit v2.3", None),
        ("v2.4.0, two function-asya replicas", "edit replicas", None),
    ):
        if key not in raw:
            continue
        e = raw[key]
        row = ratio_row(core, e["edit_s"], e["compose_s"], "s", target)[:6]
        detail = (
            f"{e['calls function-asya']:.1f}; {e['computed_affected']:,} / {e['computed_others']:,} "
            f"({e['affected']:,} affected); highest generation {e['generation_affected']} / "
            f"{e['generation_others']}"
        )
        rows.append((*row, detail))
    return rows


def tables(raw: dict[str, Any], actors: int) -> tuple[list[Row], list[str]]:
    """The phase's judged rows and its report lines."""
    sides, edits = side_rows(raw, actors), edit_rows(raw)
    lines = [
        "",
        f"A fleet in Crossplane core v2.4.0 (bench/fleet_rig.py), {actors:,} v2 actors at once, "
        "each side on a fresh control plane:",
        "",
        *SIDES_HEADER,
        *(f"| {' | '.join(row)} |" for row in sides),
        "",
        f"The flavor edit ({actors // 2:,} of the actors list it):",
        "",
        *EDIT_HEADER,
        *(f"| {' | '.join(row)} |" for row in edits),
    ]
    if "replicas" in raw:
        lines += ["", replicas_line(raw)]
    return [row[:6] for row in sides + edits], lines


def replicas_line(raw: dict[str, Any]) -> str:
    """Two replicas against one: CPU per actor by replica, calls and answers computed."""
    two, one = raw["replicas"], raw[OURS]
    each = [v for k, v in sorted(two.items()) if k.startswith("cpu_ms ")]
    return (
        f"Two replicas behind one name, Crossplane balancing them (round robin): composing, "
        f"function CPU per actor {two['function_cpu_ms']:.2f} ms "
        f"({' + '.join(f'{v:.2f}' for v in each)}) against {one['function_cpu_ms']:.2f} ms "
        f"with one; calls per actor {two['calls function-asya']:.1f} against "
        f"{one['calls function-asya']:.1f}; cache misses {two['misses']:,.0f} against "
        f"{one['misses']:,.0f}; largest RSS {two['rss_mib']:.1f} MiB."
    )
